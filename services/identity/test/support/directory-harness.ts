// An identity server with the directory, API-key and access services on an ephemeral port, over its own
// schema, with the outbox relay publishing audit events to the real Kafka and cached API-key answers in the
// real Redis under a namespace of its own. Callers are resolved by AccessService.Authenticate itself.
import { randomUUID } from "node:crypto";
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { MikroORM } from "@mikro-orm/postgresql";
import { migrateToHead, openDatabase } from "@sca/db";
import { createKafka, ensureTopics, OutboxMessage, OutboxRelay, TOPICS } from "@sca/kafka";
import { createLogger } from "@sca/log";
import { AccessService } from "@sca/proto/sca/identity/v1/access_pb.ts";
import { ApiKeyService } from "@sca/proto/sca/identity/v1/api_keys_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { createRedis, type Redis } from "@sca/redis";
import { CALLER_HEADER, HealthRegistry, startRpcServer } from "@sca/rpc";
import { testServers, uniqueName } from "@sca/testkit";
import { issueAccessToken } from "../../src/domain/access-token.ts";
import { registerAccessService } from "../../src/rpc/access-service.ts";
import { registerApiKeyService } from "../../src/rpc/api-key-service.ts";
import { registerDirectoryService } from "../../src/rpc/directory-service.ts";
import { redisApiKeyAnswerCache } from "../../src/store/api-key-answer-cache.ts";
import { entities } from "../../src/store/entities.ts";
import { migrations } from "../../src/store/migrations/index.ts";

export const SECRET = "test-secret-key-that-is-at-least-32-characters";

export interface DirectoryHarness {
  orm: MikroORM;
  redis: Redis;
  /** Redis namespace of the cached API-key answers of this run. */
  answerNamespace: string;
  access: Client<typeof AccessService>;
  directory: Client<typeof DirectoryService>;
  apiKeys: Client<typeof ApiKeyService>;
  /** A user row made directly in the database. */
  user(opts?: { superAdmin?: boolean; active?: boolean }): Promise<string>;
  /** Call options carrying the caller token Authenticate answers for this bearer (an access token or a key). */
  asBearer(bearer: string): Promise<{ headers: Record<string, string> }>;
  as(userId: string): Promise<{ headers: Record<string, string> }>;
  close(): Promise<void>;
}

export async function startDirectory(opts: { cascade?: boolean } = {}): Promise<DirectoryHarness> {
  const servers = testServers();
  const logger = createLogger("identity-test", "ERROR");
  const schema = uniqueName("identity_directory");
  const orm = await openDatabase({ url: servers.databaseUrl, schema, entities: [...entities, OutboxMessage], migrations, logger, poolMax: 6 });
  await migrateToHead(orm);
  const kafka = createKafka({ brokers: servers.kafkaBrokers, clientId: schema, logger });
  await ensureTopics(kafka, [TOPICS.auditEvents]);
  const relay = new OutboxRelay({ kafka, orm, logger, pollIntervalMs: 100 });
  relay.start();
  const redis = createRedis(servers.redisUrl, logger);
  const answerNamespace = `${uniqueName("answers")}:`;
  const apiKeyAnswers = redisApiKeyAnswerCache(redis, logger, answerNamespace);
  const server = await startRpcServer({
    service: "identity", port: 0, logger, secretKey: SECRET, health: new HealthRegistry(), readMaxBytes: 1 << 20,
    routes: (router) => {
      registerAccessService(router, { orm, secretKey: SECRET, groupCascade: opts.cascade ?? true });
      registerDirectoryService(router, { orm, apiKeyAnswers });
      registerApiKeyService(router, { orm, secretKey: SECRET, apiKeyAnswers });
    },
  });
  const transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${server.port}` });
  const access = createClient(AccessService, transport);
  const asBearer = async (bearer: string) => {
    const { callerToken } = await access.authenticate({ bearer, ip: "203.0.113.9", userAgent: "jest" });
    return { headers: { [CALLER_HEADER]: callerToken } };
  };
  return {
    orm, redis, answerNamespace, access,
    directory: createClient(DirectoryService, transport),
    apiKeys: createClient(ApiKeyService, transport),
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
      redis.disconnect();
      await orm.em.getConnection().execute(`drop schema if exists "${schema}" cascade`);
      await orm.close();
    },
  };
}
