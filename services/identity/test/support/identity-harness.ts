// An identity server with every service main.ts registers, on an ephemeral port over a schema of its own, with
// the outbox relay publishing to the real Kafka under a topic prefix of its own and cached API-key answers in the
// real Redis under a namespace of its own. Calls go through real gRPC clients; bearer calls carry the caller token
// AccessService.Authenticate answers, as the gateway forwards it.
import { randomUUID } from "node:crypto";
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { MikroORM } from "@mikro-orm/postgresql";
import { loadConfig } from "@sca/config";
import { migrateToHead, openDatabase } from "@sca/db";
import { createKafka, ensureTopics, OutboxMessage, OutboxRelay, TOPICS, type KafkaClient } from "@sca/kafka";
import { createLogger, type Logger } from "@sca/log";
import { AccessService } from "@sca/proto/sca/identity/v1/access_pb.ts";
import { AccountService, AdminUserService } from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { ApiKeyService } from "@sca/proto/sca/identity/v1/api_keys_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { SsoService } from "@sca/proto/sca/identity/v1/sso_pb.ts";
import { createRedis, type Redis } from "@sca/redis";
import { CALLER_HEADER, HealthRegistry, startRpcServer } from "@sca/rpc";
import { testServers, uniqueName } from "@sca/testkit";
import type { CustomFetch } from "openid-client";
import { issueAccessToken } from "../../src/domain/access-token.ts";
import { ssoKeys, type SsoConfig } from "../../src/domain/sso-settings.ts";
import { registerAccessService } from "../../src/rpc/access-service.ts";
import { registerAccountService } from "../../src/rpc/account-service.ts";
import { accountKeys, type AccountSettings } from "../../src/rpc/account-settings.ts";
import { registerAdminUserService } from "../../src/rpc/admin-user-service.ts";
import { registerApiKeyService } from "../../src/rpc/api-key-service.ts";
import { registerDirectoryService } from "../../src/rpc/directory-service.ts";
import { createProviderClients } from "../../src/clients/sso-providers.ts";
import { registerSsoService } from "../../src/rpc/sso-service.ts";
import { redisApiKeyAnswerCache } from "../../src/store/api-key-answer-cache.ts";
import { entities } from "../../src/store/entities.ts";
import { migrations } from "../../src/store/migrations/index.ts";

export const SECRET = "test-secret-key-that-is-at-least-32-characters";

export interface IdentityOptions {
  /** Account settings on top of the test defaults (AUTH_SELF_REGISTRATION, LOGIN_THROTTLE_*, ...). */
  accountEnv?: Record<string, string>;
  /** SSO settings (OIDC_*, OAUTH_*, AUTH_AUTO_REGISTER, ...); without them no provider is configured. */
  ssoEnv?: Record<string, string>;
  /** How SSO reaches the providers (a test provider's fetch, which trusts the test CA). */
  providerFetch?: CustomFetch;
  /** Where its log lines go; by default errors only, to stdout. */
  logger?: Logger;
}

/** The services main.ts registers, under the names the harness gives their clients. */
const SERVICES = {
  access: AccessService, accounts: AccountService, admin: AdminUserService,
  directory: DirectoryService, apiKeys: ApiKeyService, sso: SsoService,
} as const;

export type IdentityClients = { [Name in keyof typeof SERVICES]: Client<(typeof SERVICES)[Name]> };

export interface IdentityHarness extends IdentityClients {
  orm: MikroORM;
  schema: string;
  /** The relay's Kafka client: its topics are this run's (EventReader reads them through it). */
  kafka: KafkaClient;
  /** http://127.0.0.1:<port> */
  url: string;
  settings: AccountSettings;
  ssoConfig: SsoConfig;
  redis: Redis;
  /** Redis namespace of the cached API-key answers of this run. */
  answerNamespace: string;
  /** A user row made directly in the database. */
  user(opts?: { superAdmin?: boolean; active?: boolean }): Promise<string>;
  /** Call options carrying the caller token Authenticate answers for this bearer (an access token or a key). */
  asBearer(bearer: string): Promise<{ headers: Record<string, string> }>;
  /** Call options that make the call as this user (with a fresh access token as the bearer). */
  as(userId: string): Promise<{ headers: Record<string, string> }>;
  close(): Promise<void>;
}

export async function startIdentity(opts: IdentityOptions = {}): Promise<IdentityHarness> {
  const servers = testServers();
  const logger = opts.logger ?? createLogger("identity-test", "ERROR");
  const schema = uniqueName("identity");
  const orm = await openDatabase({ url: servers.databaseUrl, schema, entities: [...entities, OutboxMessage], migrations, logger, poolMax: 6 });
  await migrateToHead(orm);
  const kafka = createKafka({ brokers: servers.kafkaBrokers, clientId: schema, logger, topicPrefix: `${schema}.` });
  await ensureTopics(kafka, [TOPICS.domainEvents, TOPICS.auditEvents]);
  const relay = new OutboxRelay({ kafka, orm, logger, pollIntervalMs: 100 });
  relay.start();
  const redis = createRedis(servers.redisUrl, logger);
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const apiKeyAnswers = redisApiKeyAnswerCache(redis, logger, answerNamespace);
  const settings = loadConfig(accountKeys, { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", ...opts.accountEnv });
  const ssoConfig = loadConfig(ssoKeys, opts.ssoEnv ?? {});
  const accountDeps = { orm, secretKey: SECRET, settings };
  const server = await startRpcServer({
    service: "identity", port: 0, logger, secretKey: SECRET, health: new HealthRegistry(), readMaxBytes: 1 << 20,
    routes: (router) => {
      registerAccountService(router, accountDeps);
      registerAdminUserService(router, { ...accountDeps, apiKeyAnswers });
      registerAccessService(router, { orm, secretKey: SECRET, groupCascade: true });
      registerDirectoryService(router, { orm, apiKeyAnswers });
      registerApiKeyService(router, { orm, secretKey: SECRET, apiKeyAnswers, groupCascade: true });
      registerSsoService(router, {
        orm, secretKey: SECRET, logger, config: ssoConfig, sessions: { secretKey: SECRET, settings },
        clients: createProviderClients({ timeoutSeconds: ssoConfig.OAUTH_HTTP_TIMEOUT_SECONDS, fetch: opts.providerFetch }),
      });
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  const transport = createGrpcTransport({ baseUrl: url });
  const clients = Object.fromEntries(Object.entries(SERVICES).map(([name, service]) => [name, createClient(service, transport)])) as IdentityClients;
  const asBearer = async (bearer: string) => {
    const { callerToken } = await clients.access.authenticate({ bearer, client: { ip: "203.0.113.9", userAgent: "jest" } });
    return { headers: { [CALLER_HEADER]: callerToken } };
  };
  return {
    ...clients, orm, schema, kafka, url, settings, ssoConfig, redis, answerNamespace,
    async user(u = {}) {
      const id = randomUUID();
      await orm.em.fork().execute(
        "insert into users (id, email, full_name, is_superuser, is_active) values (?, ?, ?, ?, ?)",
        [id, `${id}@example.com`, "Test Person", u.superAdmin ?? false, u.active ?? true]);
      return id;
    },
    asBearer,
    async as(userId) {
      return asBearer((await issueAccessToken(userId, SECRET, 30)).token);
    },
    async close() {
      await server.close(1000);
      await relay.stop();
      await deleteTopicsOf(kafka);
      redis.disconnect();
      await orm.em.getConnection().execute(`drop schema if exists "${schema}" cascade`);
      await orm.close();
    },
  };
}

/** Deletes the topics under the client's prefix (the relay and every reader of them have stopped). */
async function deleteTopicsOf(kafka: KafkaClient): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const own = (await admin.listTopics()).filter((t) => t.startsWith(kafka.topicPrefix));
    if (own.length > 0) await admin.deleteTopics({ topics: own });
  } finally {
    await admin.disconnect();
  }
}
