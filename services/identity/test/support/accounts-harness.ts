// An identity server with the accounts services on an ephemeral port, over its own schema, with the outbox
// relay publishing to the real Kafka. Calls go through a real gRPC client; bearer calls carry a caller token
// built by the same code the gateway relies on (store/callers.ts).
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { loadConfig } from "@sca/config";
import { migrateToHead, openDatabase } from "@sca/db";
import { createKafka, ensureTopics, OutboxMessage, OutboxRelay, TOPICS } from "@sca/kafka";
import { createLogger } from "@sca/log";
import { AccountService, AdminUserService } from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { CALLER_HEADER, HealthRegistry, signCallerToken, startRpcServer } from "@sca/rpc";
import { testServers, uniqueName } from "@sca/testkit";
import type { MikroORM } from "@mikro-orm/postgresql";
import { registerAccessService } from "../../src/rpc/access-service.ts";
import { registerAccountService } from "../../src/rpc/account-service.ts";
import { accountKeys, type AccountSettings } from "../../src/rpc/account-settings.ts";
import { registerAdminUserService } from "../../src/rpc/admin-user-service.ts";
import { redisApiKeyAnswerCache } from "../../src/store/api-key-answer-cache.ts";
import { createRedis } from "@sca/redis";
import { userCaller } from "../../src/store/callers.ts";
import { entities } from "../../src/store/entities.ts";
import { migrations } from "../../src/store/migrations/index.ts";

export const SECRET = "test-secret-key-that-is-at-least-32-characters";

export interface AccountsHarness {
  orm: MikroORM;
  schema: string;
  url: string;
  settings: AccountSettings;
  accounts: Client<typeof AccountService>;
  admin: Client<typeof AdminUserService>;
  /** Call options that make the call as this user (the caller token the gateway would forward). */
  as(userId: string): Promise<{ headers: Record<string, string> }>;
  close(): Promise<void>;
}

export async function startAccounts(env: Record<string, string> = {}): Promise<AccountsHarness> {
  const servers = testServers();
  const logger = createLogger("identity-test", "ERROR");
  const schema = uniqueName("identity_accounts");
  const orm = await openDatabase({ url: servers.databaseUrl, schema, entities: [...entities, OutboxMessage], migrations, logger, poolMax: 4 });
  await migrateToHead(orm);
  const settings = loadConfig(accountKeys, { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", ...env });
  const kafka = createKafka({ brokers: servers.kafkaBrokers, clientId: schema, logger });
  await ensureTopics(kafka, [TOPICS.domainEvents, TOPICS.auditEvents]);
  const relay = new OutboxRelay({ kafka, orm, logger, pollIntervalMs: 100 });
  relay.start();
  const deps = { orm, secretKey: SECRET, settings };
  const redis = createRedis(servers.redisUrl, logger);
  const apiKeyAnswers = redisApiKeyAnswerCache(redis, logger, `${uniqueName("identity_answers")}:`);
  const server = await startRpcServer({
    service: "identity", port: 0, logger, secretKey: SECRET, health: new HealthRegistry(), readMaxBytes: 1 << 20,
    routes: (router) => {
      registerAccessService(router, { orm, secretKey: SECRET, groupCascade: true });
      registerAccountService(router, deps);
      registerAdminUserService(router, { ...deps, apiKeyAnswers });
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  const transport = createGrpcTransport({ baseUrl: url });
  return {
    orm, schema, url, settings,
    accounts: createClient(AccountService, transport),
    admin: createClient(AdminUserService, transport),
    async as(userId) {
      const caller = await userCaller(orm.em.fork(), userId, { cascade: true, ip: "203.0.113.9", userAgent: "jest" });
      if (!caller) throw new Error(`no active user ${userId}`);
      return { headers: { [CALLER_HEADER]: await signCallerToken(caller, SECRET) } };
    },
    async close() {
      await server.close(1000);
      await relay.stop();
      redis.disconnect();
      await orm.em.getConnection().execute(`drop schema if exists "${schema}" cascade`);
      await orm.close();
    },
  };
}
