// A real identity service (access, directory and API-key services over a schema of its own, audit events through
// the outbox to the real Kafka, cached API-key answers in the real Redis under a namespace of its own) and a real
// gateway in front of it, both on ephemeral ports. Every log line of both is kept, to look for leaked secrets.
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { loadConfig } from "@sca/config";
import { migrateToHead, openDatabase } from "@sca/db";
import { createKafka, ensureTopics, OutboxMessage, OutboxRelay, TOPICS } from "@sca/kafka";
import { createLogger } from "@sca/log";
import { createRedis, FixedWindowLimiter, type Redis } from "@sca/redis";
import { HealthRegistry, startRpcServer } from "@sca/rpc";
import { testServers, uniqueName } from "@sca/testkit";
import { issueAccessToken } from "../../identity/src/domain/access-token.ts";
import { registerAccessService } from "../../identity/src/rpc/access-service.ts";
import { registerApiKeyService } from "../../identity/src/rpc/api-key-service.ts";
import { registerDirectoryService } from "../../identity/src/rpc/directory-service.ts";
import { redisApiKeyAnswerCache } from "../../identity/src/store/api-key-answer-cache.ts";
import { entities } from "../../identity/src/store/entities.ts";
import { migrations } from "../../identity/src/store/migrations/index.ts";
import { gatewayKeys } from "../src/config.ts";
import { createGatewayContext } from "../src/context.ts";
import { identityClients } from "../src/identity-clients.ts";
import { apiRoutes } from "../src/routes/index.ts";
import { startGateway } from "../src/server.ts";

export const SECRET = "test-secret-key-that-is-at-least-32-characters";

export interface Answer { status: number; headers: Headers; text: string; json: Record<string, unknown> }

export interface RequestOptions { bearer?: string; body?: unknown; headers?: Record<string, string> }

export interface AuthStack {
  /** Runs SQL in identity's schema: what a test changes behind identity's back (expiry, deactivation). */
  sql(query: string, params?: unknown[]): Promise<unknown>;
  redis: Redis;
  /** Redis namespace of this run's cached API-key answers (identity deletes there, the gateway reads there). */
  answerNamespace: string;
  /** Every log line of the gateway and of identity so far. */
  logText(): string;
  /** Every response body the gateway sent so far, in order. */
  bodies(): readonly string[];
  /** A user row made directly in identity's database. */
  user(opts?: { superAdmin?: boolean; active?: boolean }): Promise<string>;
  /** A fresh access token, as a login would issue it. */
  token(userId: string): Promise<string>;
  request(method: string, path: string, opts?: RequestOptions): Promise<Answer>;
  close(): Promise<void>;
}

function logSink(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString("utf8"));
      done();
    },
  });
}

export async function startAuthStack(): Promise<AuthStack> {
  const servers = testServers();
  const lines: string[] = [];
  // INFO: the gateway's request lines and identity's own lines are what must stay clean.
  const identityLogger = createLogger("identity-test", "INFO", logSink(lines));
  const gatewayLogger = createLogger("gateway-test", "INFO", logSink(lines));

  const schema = uniqueName("gw_identity");
  const orm = await openDatabase({ url: servers.databaseUrl, schema, entities: [...entities, OutboxMessage], migrations, logger: identityLogger, poolMax: 6 });
  await migrateToHead(orm);
  const kafka = createKafka({ brokers: servers.kafkaBrokers, clientId: schema, logger: identityLogger });
  await ensureTopics(kafka, [TOPICS.auditEvents]);
  const relay = new OutboxRelay({ kafka, orm, logger: identityLogger, pollIntervalMs: 100 });
  relay.start();
  const redis = createRedis(servers.redisUrl, identityLogger);
  const answerNamespace = `${uniqueName("gw_answers")}:`;
  const apiKeyAnswers = redisApiKeyAnswerCache(redis, identityLogger, answerNamespace);
  const identity = await startRpcServer({
    service: "identity", port: 0, logger: identityLogger, secretKey: SECRET, health: new HealthRegistry(), readMaxBytes: 1 << 20,
    routes: (router) => {
      registerAccessService(router, { orm, secretKey: SECRET, groupCascade: true });
      registerDirectoryService(router, { orm, apiKeyAnswers });
      registerApiKeyService(router, { orm, secretKey: SECRET, apiKeyAnswers });
    },
  });

  const config = loadConfig(gatewayKeys, { SECRET_KEY: SECRET, DOMAIN: "portal.example.test", REDIS_URL: servers.redisUrl });
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
  const bodies: string[] = [];

  return {
    sql: (query, params = []) => orm.em.fork().execute(query, params),
    redis, answerNamespace,
    logText: () => lines.join(""),
    bodies: () => bodies,
    async user(u = {}) {
      const id = randomUUID();
      await orm.em.fork().execute(
        "insert into users (id, email, full_name, is_superuser, is_active) values (?, ?, ?, ?, ?)",
        [id, `${id}@example.com`, "Test Person", u.superAdmin ?? false, u.active ?? true]);
      return id;
    },
    async token(userId) {
      return (await issueAccessToken(userId, SECRET, 30)).token;
    },
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.bearer !== undefined) headers.authorization = `Bearer ${opts.bearer}`;
      if (opts.body !== undefined) headers["content-type"] = "application/json";
      const res = await fetch(`${origin}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
      const text = await res.text();
      bodies.push(text);
      return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) as Record<string, unknown> : {} };
    },
    async close() {
      await gateway.close(1_000);
      gatewayRedis.disconnect();
      await identity.close(1_000);
      await relay.stop();
      redis.disconnect();
      await orm.em.getConnection().execute(`drop schema if exists "${schema}" cascade`);
      await orm.close();
    },
  };
}
