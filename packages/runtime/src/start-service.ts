// Builds and starts one instance of a service from its definition: configuration, logger, its own schema, Kafka
// when asked for, the Connect server with health, its periodic jobs. runService runs it as the process; the test
// kit starts the same definition with overrides (port 0, a schema and a topic prefix of its own, a logger).
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { keys, loadConfig } from "@sca/config";
import { migrateToHead, openDatabase, pendingMigrations, provisionServiceRole } from "@sca/db";
import { OutboxMessage, ProcessedEvent, type KafkaClient } from "@sca/kafka";
import { createLogger, type Logger } from "@sca/log";
import { HealthRegistry, READINESS, startRpcServer } from "@sca/rpc";
import { closeInOrder, type Closer } from "./closers.ts";
import type { ConfigKeys, ServiceContext, ServiceDefinition } from "./definition.ts";
import { startPeriodicJob } from "./periodic-job.ts";
import { ensureDeclaredTopics, kafkaKeys, openServiceKafka, type KafkaUse } from "./service-kafka.ts";
import { defaultRpcPort } from "./services.ts";
import { processMetricsRegistry, startMetricsServer } from "./metrics-server.ts";

/** The keys every domain service loads. */
export const baseKeys = {
  APP_ENV: keys.APP_ENV,
  LOG_LEVEL: keys.LOG_LEVEL,
  SECRET_KEY: keys.SECRET_KEY,
  DATABASE_URL: keys.DATABASE_URL,
  RPC_PORT: keys.RPC_PORT,
  RPC_HOST: keys.RPC_HOST,
  RPC_READ_MAX_BYTES: keys.RPC_READ_MAX_BYTES,
  METRICS_ENABLED: keys.METRICS_ENABLED,
  METRICS_TOKEN: keys.METRICS_TOKEN,
  METRICS_PORT: keys.METRICS_PORT,
};

/** The keys `migrate` loads besides the base keys. */
export const migrateKeys = {
  DATABASE_ADMIN_URL: keys.DATABASE_ADMIN_URL,
};

export interface ServiceOverrides<S extends object = object> {
  /** Where the configuration comes from instead of the process environment (RPC_PORT=0, KAFKA_TOPIC_PREFIX, ...). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Another schema than the definition's. */
  schema?: string;
  /** Instead of a logger at LOG_LEVEL on stdout. */
  logger?: Logger;
  /** Database connections at most (10 by default). */
  poolMax?: number;
  /** Applies the migrations and creates the declared topics before starting, as the migrate command does. */
  migrate?: boolean;
  /** false: no Connect server; the instance's `routes` serve an in-memory transport instead. */
  listen?: boolean;
  /** How often the outbox relay looks for rows when not woken. */
  relayPollIntervalMs?: number;
  /** Replaces some of the definition's seams. */
  seams?: Partial<S>;
}

export interface ServiceInstance {
  name: string;
  schema: string;
  logger: Logger;
  orm: MikroORM;
  health: HealthRegistry;
  secretKey: string;
  /** http://<host>:<port> of its Connect server; undefined when it does not listen. */
  url: string | undefined;
  /** http://<host>:<port> of its metrics server (METRICS_ENABLED with a METRICS_PORT); undefined otherwise. */
  metricsUrl: string | undefined;
  /** Its Kafka client (topics under its prefix), when the definition asks for Kafka. */
  kafka: KafkaClient | undefined;
  /** Its Connect registrations with health, as the server serves them. */
  routes: (router: ConnectRouter) => void;
  /** Reports NOT_SERVING, then closes in order: server, jobs and own resources, consumers, relay, database. */
  close(graceMs?: number): Promise<void>;
}

/** Where configuration and the schema come from: shared by the migrate command and start-up. */
export function serviceSetup<C extends ConfigKeys, K extends KafkaUse | undefined, S extends object>(
  def: ServiceDefinition<C, K, S>,
  overrides: ServiceOverrides<S> = {},
) {
  const env = overrides.env;
  const config = loadConfig(baseKeys, env);
  const kafkaConfig = def.kafka ? loadConfig(kafkaKeys, env) : undefined;
  const own = loadConfig(def.config ?? ({} as C), env);
  const logger = overrides.logger ?? createLogger(def.name, config.LOG_LEVEL);
  const schema = overrides.schema ?? def.schema ?? def.name.replaceAll("-", "_");
  // The tables the Kafka parts keep in the service's schema: the outbox it publishes, the event ids it applied.
  const entities = [
    ...def.entities,
    ...(def.kafka?.outbox ? [OutboxMessage] : []),
    ...(def.kafka?.consumes?.length ? [ProcessedEvent] : []),
  ];
  // `migrate` with an administrator's DSN first makes the service's role the owner of its schema (provision.ts).
  const provision = async () => {
    const { DATABASE_ADMIN_URL } = loadConfig(migrateKeys, env);
    if (!DATABASE_ADMIN_URL) return;
    const { role } = await provisionServiceRole({
      adminUrl: DATABASE_ADMIN_URL,
      serviceUrl: config.DATABASE_URL,
      schema,
    });
    logger.info({ role, schema }, role ? "schema owned by the service's role" : "DATABASE_URL is the admin's role");
  };
  const openOrm = () =>
    openDatabase({
      url: config.DATABASE_URL,
      schema,
      entities,
      migrations: def.migrations,
      logger,
      poolMax: overrides.poolMax,
    });
  const ensureTopics = async () => {
    if (def.kafka && kafkaConfig) await ensureDeclaredTopics(def.name, def.kafka, kafkaConfig, logger);
  };
  return { config, kafkaConfig, own, logger, schema, provision, openOrm, ensureTopics };
}

/**
 * Readiness of the service's schema. Once every migration this build knows is applied it stays so for the life of
 * the process (migrations only move forward), so probes stop costing a database round trip.
 */
function schemaAtHead(orm: MikroORM): () => Promise<boolean> {
  let atHead = false;
  return async () => (atHead ||= (await pendingMigrations(orm)).length === 0);
}

/** The instance and the closers runService hands to its signal handling (the instance's close runs the same). */
export async function openServiceInstance<C extends ConfigKeys, K extends KafkaUse | undefined, S extends object>(
  def: ServiceDefinition<C, K, S>,
  overrides: ServiceOverrides<S> = {},
): Promise<{ instance: ServiceInstance; closers: Closer[] }> {
  const setup = serviceSetup(def, overrides);
  const { config, kafkaConfig, logger, schema } = setup;
  const orm = await setup.openOrm();
  const own: Closer[] = [];
  const kafkaClosers: Closer[] = [];
  try {
    if (overrides.migrate) {
      await setup.ensureTopics();
      await migrateToHead(orm);
    }
    const health = new HealthRegistry().add(READINESS, schemaAtHead(orm));
    const addCloser = (name: string, close: () => Promise<unknown>) => void own.push({ name, close });
    const kafka =
      def.kafka &&
      kafkaConfig &&
      openServiceKafka(def.name, def.kafka, {
        config: kafkaConfig,
        orm,
        logger,
        addCloser,
        relayPollIntervalMs: overrides.relayPollIntervalMs,
      });
    kafkaClosers.push(...(kafka?.closers ?? []));
    const ctx: ServiceContext<C, K, S> = {
      name: def.name,
      logger,
      orm,
      health,
      secretKey: config.SECRET_KEY,
      addCloser,
      config: setup.own,
      seams: { ...def.seams, ...overrides.seams } as S,
      kafka: kafka?.context as ServiceContext<C, K, S>["kafka"], // set exactly when the definition asks for Kafka
    };
    const serviceRoutes = await def.start(ctx);
    await kafka?.joined();
    const routes = (router: ConnectRouter) => {
      health.register(router);
      serviceRoutes(router);
    };
    const server =
      overrides.listen === false
        ? undefined
        : await startRpcServer({
            service: def.name,
            port: config.RPC_PORT >= 0 ? config.RPC_PORT : defaultRpcPort(def.name),
            host: config.RPC_HOST,
            logger,
            secretKey: config.SECRET_KEY,
            health,
            readMaxBytes: config.RPC_READ_MAX_BYTES,
            routes: serviceRoutes,
          });
    // The process's metrics on a port of their own; a domain service has no HTTP port to serve them on otherwise.
    const metrics =
      server && config.METRICS_ENABLED && config.METRICS_PORT >= 0
        ? await startMetricsServer({
            config,
            registry: processMetricsRegistry(),
            logger,
            port: config.METRICS_PORT,
            host: config.RPC_HOST,
          })
        : undefined;
    if (metrics) addCloser("metrics server", () => metrics.close());
    for (const job of def.jobs?.(ctx) ?? []) {
      const running = startPeriodicJob(job, logger);
      addCloser(job.name, () => running.stop());
    }
    let graceMs: number | undefined;
    const closers: Closer[] = [
      ...(server ? [{ name: "rpc server", close: () => server.close(graceMs) }] : []),
      // Jobs and the service's own resources and consumers may still enqueue events, so the relay drains after them.
      ...own.reverse(),
      ...kafkaClosers,
      { name: "database", close: () => orm.close() },
    ];
    const instance: ServiceInstance = {
      name: def.name,
      schema,
      logger,
      orm,
      health,
      secretKey: config.SECRET_KEY,
      url: server && `http://${localHost(config.RPC_HOST)}:${server.port}`,
      metricsUrl: metrics && `http://${localHost(config.RPC_HOST)}:${metrics.port}`,
      kafka: kafka ? kafka.context.client : undefined,
      routes,
      async close(grace) {
        graceMs = grace;
        health.markShuttingDown();
        await closeInOrder(def.name, closers, logger);
      },
    };
    return { instance, closers };
  } catch (err) {
    // A start that failed half-way leaves nothing running.
    for (const c of [...own.reverse(), ...kafkaClosers]) await c.close().catch(() => undefined);
    await orm.close().catch(() => undefined);
    throw err;
  }
}

/** The address to reach a server bound to `host` on this machine. */
function localHost(host: string): string {
  return ["0.0.0.0", "::"].includes(host) ? "127.0.0.1" : host;
}

/** Builds and starts an instance of the service; close() stops it. */
export async function startServiceInstance<C extends ConfigKeys, K extends KafkaUse | undefined, S extends object>(
  def: ServiceDefinition<C, K, S>,
  overrides: ServiceOverrides<S> = {},
): Promise<ServiceInstance> {
  return (await openServiceInstance(def, overrides)).instance;
}
