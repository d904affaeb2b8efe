// The start-up every domain service shares: configuration, logger, its own schema, the Connect server with
// health, and graceful shutdown. `node src/main.ts migrate` applies the schema's migrations and exits.
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { keys, loadConfigOrExit } from "@sca/config";
import { openDatabase, pendingMigrations, runMigrateCommand, type DatabaseOptions } from "@sca/db";
import { createLogger, type Logger } from "@sca/log";
import { HealthRegistry, onShutdown, startRpcServer } from "@sca/rpc";
import { defaultRpcPort, type ServiceName } from "./services.ts";

const baseKeys = {
  APP_ENV: keys.APP_ENV,
  LOG_LEVEL: keys.LOG_LEVEL,
  SECRET_KEY: keys.SECRET_KEY,
  DATABASE_URL: keys.DATABASE_URL,
  RPC_PORT: keys.RPC_PORT,
  RPC_READ_MAX_BYTES: keys.RPC_READ_MAX_BYTES,
};

export interface ServiceContext {
  name: ServiceName;
  logger: Logger;
  orm: MikroORM;
  health: HealthRegistry;
  secretKey: string;
  /** Resources the service opened itself (Kafka, Redis, sweeps), closed after the server drains. */
  addCloser(name: string, close: () => Promise<unknown>): void;
}

export interface ServiceDefinition {
  name: ServiceName;
  /** The schema the service owns; defaults to its name with dashes as underscores. */
  schema?: string;
  entities: DatabaseOptions["entities"];
  migrations: DatabaseOptions["migrations"];
  /** Wires the service's own parts and returns its Connect routes. */
  start(ctx: ServiceContext): Promise<(router: ConnectRouter) => void> | ((router: ConnectRouter) => void);
}

export async function runService(def: ServiceDefinition): Promise<void> {
  const config = loadConfigOrExit(baseKeys);
  const logger = createLogger(def.name, config.LOG_LEVEL);
  const schema = def.schema ?? def.name.replaceAll("-", "_");
  const orm = await openDatabase({ url: config.DATABASE_URL, schema, entities: def.entities, migrations: def.migrations, logger });
  if (process.argv[2] === "migrate") await runMigrateCommand(orm, logger);

  const health = new HealthRegistry().add("readiness", async () => (await pendingMigrations(orm)).length === 0);
  const closers: { name: string; close: () => Promise<unknown> }[] = [];
  const ctx: ServiceContext = {
    name: def.name, logger, orm, health, secretKey: config.SECRET_KEY,
    addCloser: (name, close) => closers.push({ name, close }),
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
    ...closers.reverse(),
    { name: "database", close: () => orm.close() },
  ], () => health.markShuttingDown());
}
