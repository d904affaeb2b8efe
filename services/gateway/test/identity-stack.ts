// A real identity (its definition started by the test kit: every service, over a schema of its own, events through
// the outbox to the real Kafka, cached API-key answers in the real Redis) and a real gateway in front of it, both on
// ephemeral ports. Requests leave from a loopback address of the test's choosing (127.0.0.0/8 is all local on
// Linux), so the per-client-address limits can be exercised and avoided without touching the gateway. Every log
// line of both processes and every answer body is kept, to look for leaked secrets.
import { request as httpRequest } from "node:http";
import { Writable } from "node:stream";
import { createLogger } from "@sca/log";
import { PasswordResetRequestedSchema } from "@sca/proto/sca/events/v1/accounts_pb.ts";
import { TOPICS } from "@sca/kafka";
import { createRedis, type Redis } from "@sca/redis";
import { EventReader, fixturesOf, startService, TEST_SECRET, testServers, uniqueName } from "@sca/testkit";
import { startTestGateway } from "./harness.ts";

export { TEST_SECRET as SECRET };
export const PASSWORD = "violet-harbour-engine-42";

/** Response headers by lower-case name (set-cookie as a list), also readable with `get(name)` as fetch's are. */
export type AnswerHeaders = Readonly<Record<string, string | string[] | undefined>> & {
  get(name: string): string | null;
};

export interface Answer {
  status: number;
  headers: AnswerHeaders;
  text: string;
  json: Record<string, unknown>;
}

export interface RequestOptions {
  bearer?: string;
  body?: unknown;
  cookie?: string;
  headers?: Record<string, string>;
}

/** Requests from one client address. */
export interface Client {
  ip: string;
  request(method: string, path: string, opts?: RequestOptions): Promise<Answer>;
}

export interface IdentityStackOptions {
  /** Identity's account settings (AUTH_SELF_REGISTRATION, LOGIN_THROTTLE_*, ...). */
  identityEnv?: Record<string, string>;
  /** The gateway's configuration (APP_ENV, *_RATE_LIMIT, ...). */
  gatewayEnv?: Record<string, string>;
}

export interface IdentityStack {
  /** A client at a loopback address no other client of this stack uses. */
  client(): Client;
  /** A request from the stack's own client address. */
  request(method: string, path: string, opts?: RequestOptions): Promise<Answer>;
  /** A new address, as the login form would send it. */
  email(): string;
  /** A person made directly in identity's database with PASSWORD. */
  person(opts?: { superAdmin?: boolean }): Promise<{ id: string; email: string }>;
  /** A user row (no password) made directly in identity's database. */
  user(opts?: { superAdmin?: boolean; active?: boolean }): Promise<string>;
  /** A fresh access token, as a login would issue it. */
  token(userId: string): Promise<string>;
  /** The raw token of the newest reset e-mail event for the user. */
  resetTokenOf(userId: string, count?: number): Promise<string>;
  /** SQL against identity's schema, for what no route can do (ageing a token, deactivating behind its back). */
  sql(query: string, params?: unknown[]): Promise<unknown>;
  /** Identity's Redis connection. */
  redis: Redis;
  /** Redis namespace of this run's cached API-key answers (identity deletes there, the gateway reads there). */
  answerNamespace: string;
  /** Every log line of the gateway and of identity so far. */
  logText(): string;
  /** Every response body the gateway sent so far, in order. */
  bodies(): readonly string[];
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

function answerHeaders(raw: Record<string, string | string[] | undefined>): AnswerHeaders {
  const get = (name: string) => {
    const value = raw[name.toLowerCase()];
    return value === undefined ? null : [value].flat().join(", ");
  };
  // Not enumerable: the headers still print and compare as the plain record.
  return Object.defineProperty({ ...raw }, "get", { value: get, enumerable: false }) as AnswerHeaders;
}

function send(
  origin: string,
  localAddress: string,
  method: string,
  path: string,
  opts: RequestOptions,
): Promise<Answer> {
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
        const json =
          text && /json/.test(res.headers["content-type"] ?? "") ? (JSON.parse(text) as Record<string, unknown>) : {};
        resolve({ status: res.statusCode ?? 0, headers: answerHeaders(res.headers), text, json });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

export async function startIdentityStack(opts: IdentityStackOptions = {}): Promise<IdentityStack> {
  const lines: string[] = [];
  // INFO: the gateway's request lines and identity's own lines are what must stay clean.
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", ...opts.identityEnv },
    logger: createLogger("identity-test", "INFO", logSink(lines)),
    poolMax: 6,
    seams: { apiKeyAnswerNamespace: answerNamespace, accessAnswerNamespace: `${answerNamespace}access:` },
  });
  const redis = createRedis(testServers().redisUrl, identity.logger);
  const domainEvents = await EventReader.start(identity.kafka!, TOPICS.domainEvents);
  const gateway = await startTestGateway({
    env: opts.gatewayEnv,
    logger: createLogger("gateway-test", "INFO", logSink(lines)),
    identity: { url: identity.url!, answerNamespace, accessAnswerNamespace: `${answerNamespace}access:` },
  });
  const bodies: string[] = [];
  const client = (): Client => {
    const ip = nextAddress();
    return {
      ip,
      async request(method, path, o = {}) {
        const answer = await send(gateway.origin, ip, method, path, o);
        bodies.push(answer.text);
        return answer;
      },
    };
  };
  const own = client();
  const fixtures = await fixturesOf("identity");
  let people = 0;

  return {
    client,
    request: (method, path, o) => own.request(method, path, o),
    email: () => `${identity.schema}.${++people}@example.com`,
    async person(p = {}) {
      const email = `${identity.schema}.${++people}@example.com`;
      return {
        id: await fixtures.person(identity.orm, { email, password: PASSWORD, superAdmin: p.superAdmin }),
        email,
      };
    },
    user: (u) => fixtures.user(identity.orm, u),
    token: (userId) => fixtures.accessToken(userId),
    async resetTokenOf(userId, count = 1) {
      const events = await domainEvents.waitFor(PasswordResetRequestedSchema, (e) => e.userId === userId, count);
      return new URL(events.at(-1)!.resetUrl).searchParams.get("token")!;
    },
    sql: (query, params = []) => identity.orm.em.fork().execute(query, params),
    redis,
    answerNamespace,
    logText: () => lines.join(""),
    bodies: () => bodies,
    async close() {
      await gateway.close();
      await domainEvents.stop();
      redis.disconnect();
      await identity.close();
    },
  };
}

/** The refresh cookie a response sets (the same token on both paths), or undefined. */
export function refreshCookieSet(answer: Answer): string | undefined {
  const cookies = answer.headers["set-cookie"] ?? [];
  const value = (Array.isArray(cookies) ? cookies : [cookies])
    .map((c) => /^refresh_token=([^;]*)/.exec(c)?.[1])
    .find(Boolean);
  return value;
}

/** Signs in through the gateway; the access token and the cookie header to present next. */
export async function signIn(
  client: Client,
  email: string,
  password = PASSWORD,
  prefix = "/v1/auth",
): Promise<{ accessToken: string; cookie: string; answer: Answer }> {
  const answer = await client.request("POST", `${prefix}/login`, { body: { email, password } });
  if (answer.status !== 200 || typeof answer.json.access_token !== "string")
    throw new Error(`login answered ${answer.status}: ${answer.text}`);
  return { accessToken: answer.json.access_token, cookie: `refresh_token=${refreshCookieSet(answer)}`, answer };
}
