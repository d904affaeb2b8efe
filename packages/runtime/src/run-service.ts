// The start-up every domain service shares: configuration, logger, its own schema, Kafka when asked for, the
// Connect server with health, and graceful shutdown. `node src/main.ts migrate` creates the Kafka topics the
// service declares, applies the schema's migrations and exits.
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { keys, loadConfigOrExit } from "@sca/config";
import { openDatabase, pendingMigrations, runMigrateCommand, type DatabaseOptions } from "@sca/db";
import { OutboxMessage } from "@sca/kafka";
import { createLogger, type Logger } from "@sca/log";
import { HealthRegistry, onShutdown, READINESS, startRpcServer } from "@sca/rpc";
import { ensureDeclaredTopics, kafkaKeys, openServiceKafka, type KafkaUse, type ServiceKafka } from "./service-kafka.ts";
import { defaultRpcPort, type ServiceName } from "./services.ts";

const baseKeys = {
  APP_ENV: keys.APP_ENV,
  LOG_LEVEL: keys.LOG_LEVEL,
  SECRET_KEY: keys.SECRET_KEY,
  DATABASE_URL: keys.DATABASE_URL,
  RPC_PORT: keys.RPC_PORT,
  RPC_READ_MAX_BYTES: keys.RPC_READ_MAX_BYTES,
};

export interface ServiceContext<K extends KafkaUse | undefined = undefined> {
  name: ServiceName;
  logger: Logger;
  orm: MikroORM;
  health: HealthRegistry;
  secretKey: string;
  /** Resources the service opened itself (Kafka, Redis, sweeps), closed after the server drains. */
  addCloser(name: string, close: () => Promise<unknown>): void;
  /** Present when the definition asks for Kafka. */
  kafka: K extends KafkaUse ? ServiceKafka : undefined;
}

export interface ServiceDefinition<K extends KafkaUse | undefined = undefined> {
  name: ServiceName;
  /** The schema the service owns; defaults to its name with dashes as underscores. */
  schema?: string;
  entities: DatabaseOptions["entities"];
  migrations: DatabaseOptions["migrations"];
  /**
   * Connects the service to Kafka (ctx.kafka); `outbox: true` also runs its outbox relay. The topics it lists as
   * `produces` and `consumes` are created by `migrate`.
   */
  kafka?: K;
  /** Wires the service's own parts and returns its Connect routes. */
  start(ctx: ServiceContext<K>): Promise<(router: ConnectRouter) => void> | ((router: ConnectRouter) => void);
}

/**
 * Readiness of the service's schema. Once every migration this build knows is applied it stays so for the life of
 * the process (migrations only move forward), so probes stop costing a database round trip.
 */
function schemaAtHead(orm: MikroORM): () => Promise<boolean> {
  let atHead = false;
  return async () => (atHead ||= (await pendingMigrations(orm)).length === 0);
}

export async function runService<K extends KafkaUse | undefined = undefined>(def: ServiceDefinition<K>): Promise<void> {
  const config = loadConfigOrExit(baseKeys);
  const kafkaConfig = def.kafka && loadConfigOrExit(kafkaKeys);
  const logger = createLogger(def.name, config.LOG_LEVEL);
  const schema = def.schema ?? def.name.replaceAll("-", "_");
  const entities = def.kafka?.outbox ? [...def.entities, OutboxMessage] : def.entities;
  const orm = await openDatabase({ url: config.DATABASE_URL, schema, entities, migrations: def.migrations, logger });
  if (process.argv[2] === "migrate") {
    if (def.kafka && kafkaConfig) {
      try {
        await ensureDeclaredTopics(def.name, def.kafka, kafkaConfig, logger);
      } catch (err) {
        logger.error({ err }, "could not create the service's Kafka topics");
        await orm.close().catch(() => undefined);
        process.exit(1);
      }
    }
    await runMigrateCommand(orm, logger);
  }

  const health = new HealthRegistry().add(READINESS, schemaAtHead(orm));
  const closers: { name: string; close: () => Promise<unknown> }[] = [];
  const addCloser = (name: string, close: () => Promise<unknown>) => void closers.push({ name, close });
  const kafka = def.kafka && kafkaConfig && openServiceKafka(def.name, def.kafka, { config: kafkaConfig, orm, logger, addCloser });
  const ctx: ServiceContext<K> = {
    name: def.name, logger, orm, health, secretKey: config.SECRET_KEY, addCloser,
    kafka: kafka?.context as ServiceContext<K>["kafka"], // set exactly when the definition asks for Kafka
  };
  const routes = await def.start(ctx);
  const server = await startRpcServer({
    service: def.name,
    port: config.RPC_PORT >= 0 ? config.RPC_PORT : defaultRpcPort(def.name),
    host: process.env.RPC_HOST ?? "127.0.0.1",
    logger,
    secretKey: config.SECRET_KEY,
    health,
    readMaxBytes: config.RPC_READ_MAX_BYTES,
    routes,
  });
  onShutdown(logger, [
    { name: "rpc server", close: () => server.close() },
    // The service's own resources and consumers may still enqueue events, so the relay drains after them.
    ...closers.reverse(),
    ...(kafka?.closers ?? []),
    { name: "database", close: () => orm.close() },
  ], () => health.markShuttingDown());
}
