// What a domain service is, declared once in services/<name>/src/service.ts: the keys it loads, its schema, its
// Kafka use, its Connect registrations and its periodic jobs. main.ts runs it (runService); tests start the same
// definition with overrides (the test kit's startService).
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ConfigOf, KeySpec } from "@sca/config";
import type { DatabaseOptions } from "@sca/db";
import type { Logger } from "@sca/log";
import type { HealthRegistry } from "@sca/rpc";
import type { HeapGrowth } from "./heap-growth.ts";
import type { PeriodicJob } from "./periodic-job.ts";
import type { KafkaUse, ServiceKafka } from "./service-kafka.ts";
import type { ServiceName } from "./services.ts";

export type ConfigKeys = Record<string, KeySpec<unknown>>;

export interface ServiceContext<
  C extends ConfigKeys = ConfigKeys,
  K extends KafkaUse | undefined = KafkaUse | undefined,
  S extends object = object,
> {
  name: ServiceName;
  logger: Logger;
  orm: MikroORM;
  health: HealthRegistry;
  secretKey: string;
  /** The definition's own keys, parsed once at start-up. */
  config: ConfigOf<C>;
  /** The definition's seams: its defaults, with what a test replaced. */
  seams: S;
  /** Resources the service opened itself (Redis, clients), closed after the server drains. */
  addCloser(name: string, close: () => Promise<unknown>): void;
  /** Present when the definition asks for Kafka. */
  kafka: K extends KafkaUse ? ServiceKafka : undefined;
}

export interface ServiceDefinition<
  C extends ConfigKeys = ConfigKeys,
  K extends KafkaUse | undefined = KafkaUse | undefined,
  S extends object = object,
> {
  name: ServiceName;
  /** The schema the service owns; defaults to its name with dashes as underscores. */
  schema?: string;
  /** The keys it loads besides the runtime's (APP_ENV, LOG_LEVEL, SECRET_KEY, DATABASE_URL, RPC_*), as ctx.config. */
  config?: C;
  entities: DatabaseOptions["entities"];
  migrations: DatabaseOptions["migrations"];
  /**
   * Connects the service to Kafka (ctx.kafka); `outbox: true` also runs its outbox relay. The topics it lists as
   * `produces` and `consumes` are created by `migrate`.
   */
  kafka?: K;
  /**
   * What a test may replace, with the production values: edges to the world outside the portal (an outbound
   * fetch) and names shared with other processes (a Redis namespace). Never business rules.
   */
  seams?: S;
  /** Wires the service's own parts (consumers through ctx.kafka.consume) and returns its Connect registrations. */
  start(ctx: ServiceContext<C, K, S>): Promise<(router: ConnectRouter) => void> | ((router: ConnectRouter) => void);
  /** Its periodic jobs, started after the server and stopped (signal aborted, run awaited) before it closes. */
  jobs?(ctx: ServiceContext<C, K, S>): PeriodicJob[];
  /**
   * How far its old generation may grow past what is live (runService applies it: NODE_OPTIONS refuses the flag), for a
   * service whose large jobs must stay within a memory bound. Tests starting it in a shared process leave it unset.
   */
  heapGrowth?: HeapGrowth;
}

/** Returns the definition as given; only there so its config, Kafka use and seams type `ctx`. */
export function defineService<
  C extends ConfigKeys = Record<never, KeySpec<unknown>>,
  K extends KafkaUse | undefined = undefined,
  S extends object = Record<never, never>,
>(def: ServiceDefinition<C, K, S>): ServiceDefinition<C, K, S> {
  return def;
}
