// A real identity (access, account, admin-user, directory and API-key services over a schema of its own, events
// through the outbox to the real Kafka) and a real gateway in front of it, both on ephemeral ports, for the account-route tests.
// Requests leave from a loopback address of the test's choosing (127.0.0.0/8 is all local on Linux), so the
// per-client-address limits can be exercised and avoided without touching the gateway. Every log line of both
// processes is kept, to look for leaked secrets.
import { request as httpRequest } from "node:http";
import { Writable } from "node:stream";
import { loadConfig } from "@sca/config";
import { migrateToHead, openDatabase } from "@sca/db";
import { createKafka, ensureTopics, OutboxMessage, OutboxRelay, TOPICS } from "@sca/kafka";
import { createLogger } from "@sca/log";
import { PasswordResetRequestedSchema } from "@sca/proto/sca/events/v1/accounts_pb.ts";
import { createRedis, FixedWindowLimiter } from "@sca/redis";
import { HealthRegistry, startRpcServer } from "@sca/rpc";
import { testServers, uniqueName } from "@sca/testkit";
import { hashPassword } from "../../identity/src/domain/password-hash.ts";
import { registerAccessService } from "../../identity/src/rpc/access-service.ts";
import { registerAccountService } from "../../identity/src/rpc/account-service.ts";
import { accountKeys } from "../../identity/src/rpc/account-settings.ts";
import { registerAdminUserService } from "../../identity/src/rpc/admin-user-service.ts";
import { registerApiKeyService } from "../../identity/src/rpc/api-key-service.ts";
import { registerDirectoryService } from "../../identity/src/rpc/directory-service.ts";
import { redisApiKeyAnswerCache } from "../../identity/src/store/api-key-answer-cache.ts";
import { insertAccount } from "../../identity/src/store/accounts.ts";
import { entities } from "../../identity/src/store/entities.ts";
import { migrations } from "../../identity/src/store/migrations/index.ts";
import { EventReader } from "../../identity/test/support/event-reader.ts";
import { gatewayKeys } from "../src/config.ts";
import { createGatewayContext } from "../src/context.ts";
import { identityClients } from "../src/identity-clients.ts";
import { apiRoutes } from "../src/routes/index.ts";
import { startGateway } from "../src/server.ts";

export const SECRET = "test-secret-key-that-is-at-least-32-characters";
export const PASSWORD = "violet-harbour-engine-42";

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: Record<string, unknown>;
}

export interface RequestOptions { bearer?: string; body?: unknown; cookie?: string; headers?: Record<string, string> }

/** Requests from one client address. */
export interface Client {
  ip: string;
  request(method: string, path: string, opts?: RequestOptions): Promise<Answer>;
}

export interface AuthStackOptions {
  /** Identity's account settings (AUTH_SELF_REGISTRATION, LOGIN_THROTTLE_*, ...). */
  identityEnv?: Record<string, string>;
  /** The gateway's configuration (APP_ENV, *_RATE_LIMIT, ...). */
  gatewayEnv?: Record<string, string>;
}

export interface AuthStack {
  /** A client at a loopback address no other client of this stack uses. */
  client(): Client;
  /** A new address, as the login form would send it. */
  email(): string;
  /** A person made directly in identity's database with PASSWORD. */
  person(opts?: { superAdmin?: boolean }): Promise<{ id: string; email: string }>;
  /** The raw token of the newest reset e-mail event for the user. */
  resetTokenOf(userId: string, count?: number): Promise<string>;
  /** SQL against identity's schema, for what no route can do (ageing a token). */
  sql(query: string, params?: unknown[]): Promise<unknown>;
  /** Every log line of the gateway and of identity so far. */
  logText(): string;
  close(): Promise<void>;
}

let lastAddress = 1;

function nextAddress(): string {
  const n = ++lastAddress;
  return `127.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

function logSink(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString("utf8"));
      done();
    },
  });
}

function send(origin: string, localAddress: string, method: string, path: string, opts: RequestOptions): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.bearer !== undefined) headers.authorization = `Bearer ${opts.bearer}`;
  if (opts.cookie !== undefined) headers.cookie = opts.cookie;
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { method, headers, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const json = text && /json/.test(res.headers["content-type"] ?? "") ? JSON.parse(text) as Record<string, unknown> : {};
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

export async function startAuthStack(opts: AuthStackOptions = {}): Promise<AuthStack> {
  const servers = testServers();
  const lines: string[] = [];
  // INFO: the gateway's request lines and identity's own lines are what must stay clean.
  const identityLogger = createLogger("identity-test", "INFO", logSink(lines));
  const gatewayLogger = createLogger("gateway-test", "INFO", logSink(lines));

  const schema = uniqueName("gw_accounts");
  const orm = await openDatabase({ url: servers.databaseUrl, schema, entities: [...entities, OutboxMessage], migrations, logger: identityLogger, poolMax: 6 });
  await migrateToHead(orm);
  const kafka = createKafka({ brokers: servers.kafkaBrokers, clientId: schema, logger: identityLogger });
  await ensureTopics(kafka, [TOPICS.domainEvents, TOPICS.auditEvents]);
  const relay = new OutboxRelay({ kafka, orm, logger: identityLogger, pollIntervalMs: 100 });
  relay.start();
  const domainEvents = await EventReader.start(TOPICS.domainEvents);
  const settings = loadConfig(accountKeys, { PASSWORD_RESET_BASE_URL: "https://portal.example.test/reset-password", ...opts.identityEnv });
  const deps = { orm, secretKey: SECRET, settings };
  const redis = createRedis(servers.redisUrl, identityLogger);
  const answerNamespace = `${uniqueName("gw_answers")}:`;
  const apiKeyAnswers = redisApiKeyAnswerCache(redis, identityLogger, answerNamespace);
  const identity = await startRpcServer({
    service: "identity", port: 0, logger: identityLogger, secretKey: SECRET, health: new HealthRegistry(), readMaxBytes: 1 << 20,
    routes: (router) => {
      registerAccessService(router, { orm, secretKey: SECRET, groupCascade: true });
      registerAccountService(router, deps);
      registerAdminUserService(router, { ...deps, apiKeyAnswers });
      registerDirectoryService(router, { orm, apiKeyAnswers });
      registerApiKeyService(router, { orm, secretKey: SECRET, apiKeyAnswers });
    },
  });

  const config = loadConfig(gatewayKeys, { SECRET_KEY: SECRET, DOMAIN: "portal.example.test", REDIS_URL: servers.redisUrl, ...opts.gatewayEnv });
  const gatewayRedis = createRedis(config.REDIS_URL, gatewayLogger);
  const ctx = createGatewayContext({
    config, logger: gatewayLogger, redis: gatewayRedis,
    limiter: new FixedWindowLimiter(gatewayRedis, `${uniqueName("gw_rl")}:`),
    readinessTargets: [],
    identity: identityClients(`http://127.0.0.1:${identity.port}`),
    apiKeyAnswerNamespace: answerNamespace,
  });
  const gateway = await startGateway(ctx, { port: 0, host: "127.0.0.1", routes: apiRoutes(ctx), webSocketEndpoints: [] });
  const origin = `http://127.0.0.1:${gateway.port}`;
  let people = 0;

  return {
    client() {
      const ip = nextAddress();
      return { ip, request: (method, path, o = {}) => send(origin, ip, method, path, o) };
    },
    email: () => `${schema}.${++people}@example.com`,
    async person(p = {}) {
      const email = `${schema}.${++people}@example.com`;
      const account = await insertAccount(orm.em.fork(), { email, fullName: "Test Person", passwordHash: await hashPassword(PASSWORD), isSuperuser: p.superAdmin ?? false });
      return { id: account!.id, email };
    },
    async resetTokenOf(userId, count = 1) {
      const events = await domainEvents.waitFor(PasswordResetRequestedSchema, (e) => e.userId === userId, count);
      return new URL(events.at(-1)!.resetUrl).searchParams.get("token")!;
    },
    sql: (query, params = []) => orm.em.fork().getConnection().execute(query, params),
    logText: () => lines.join(""),
    async close() {
      await gateway.close(1_000);
      gatewayRedis.disconnect();
      await identity.close(1_000);
      await domainEvents.stop();
      await relay.stop();
      redis.disconnect();
      await orm.em.getConnection().execute(`drop schema if exists "${schema}" cascade`);
      await orm.close();
    },
  };
}

/** The refresh cookie a response sets (the same token on both paths), or undefined. */
export function refreshCookieSet(answer: Answer): string | undefined {
  const cookies = answer.headers["set-cookie"] ?? [];
  const value = (Array.isArray(cookies) ? cookies : [cookies]).map((c) => /^refresh_token=([^;]*)/.exec(c)?.[1]).find(Boolean);
  return value;
}

/** Signs in through the gateway; the access token and the cookie header to present next. */
export async function signIn(client: Client, email: string, password = PASSWORD, prefix = "/v1/auth"): Promise<{ accessToken: string; cookie: string; answer: Answer }> {
  const answer = await client.request("POST", `${prefix}/login`, { body: { email, password } });
  if (answer.status !== 200 || typeof answer.json.access_token !== "string") throw new Error(`login answered ${answer.status}: ${answer.text}`);
  return { accessToken: answer.json.access_token, cookie: `refresh_token=${refreshCookieSet(answer)}`, answer };
}
