// Starts a domain service for a test by the path production takes (the runtime's startServiceInstance on the
// service's definition), with what keeps test runs apart: an ephemeral port, a schema and a topic prefix of its
// own, the test secret, configuration from the test (not the process environment). Migrations run first.
// close() stops it and removes its schema and topics.
import type { DescService } from "@bufbuild/protobuf";
import { createClient, createRouterTransport, type Client, type Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { createLogger } from "@sca/log";
import { serviceInterceptors } from "@sca/rpc";
import {
  startServiceInstance,
  type ConfigKeys,
  type KafkaUse,
  type ServiceDefinition,
  type ServiceInstance,
  type ServiceName,
  type ServiceOverrides,
} from "@sca/runtime";
import { cdxgenBin } from "./tools.ts";
import { TEST_SECRET } from "./callers.ts";
import { uniqueName } from "./names.ts";

/**
 * A consumer's fetch long poll in tests: a consumer stops only when its fetch in flight returns, and kafkajs's 5 s
 * default, paid by every service a test file closes, was minutes of a run. Not shorter: an idle consumer fetches once
 * per wait, and an idle six-service stack with the broker used 3.3 s of CPU in 20 s at 250 ms, 2.0 s at 1 s, which
 * the two cores of a whole run cannot spare; closing the stack takes 1.1 s instead of 0.4 (docs/testing.md).
 */
export const TEST_KAFKA_FETCH_MAX_WAIT_MS = "1000";
/**
 * How often a test service's outbox relay looks for rows nobody woke it for (an enqueue in its own process wakes it
 * at once): often enough that a row another process wrote is published promptly, rarely enough to stay cheap idle.
 */
const TEST_RELAY_POLL_MS = 250;
import { seedFromTemplate } from "./schema-template.ts";
import { testServers } from "./servers.ts";
import { withTestDatabase } from "./test-database.ts";
import { deleteTopicsOf } from "./topics.ts";

export interface TestServiceOverrides<S extends object = object> extends Omit<ServiceOverrides<S>, "env"> {
  /** Configuration on top of the test defaults (the servers, SECRET_KEY, APP_ENV=dev, RPC_PORT=0, a topic prefix). */
  env?: Record<string, string>;
}

export interface TestService extends ServiceInstance {
  /**
   * A client of one of its Connect services: over gRPC to its server or, started with `listen: false`, through
   * connect-es's in-memory router transport (the same handlers and interceptors, no network).
   */
  client<S extends DescService>(service: S): Client<S>;
  /** Stops it, then drops its schema and deletes its topics. */
  close(): Promise<void>;
}

// A definition whose config, Kafka use and seams the caller does not need to know.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDefinition = ServiceDefinition<ConfigKeys, KafkaUse | undefined, any>;

/** The definition services/<name>/src/service.ts exports (imported when asked for: packages never import services). */
async function definitionOf(name: ServiceName): Promise<AnyDefinition> {
  const module = (await import(new URL(`../../../services/${name}/src/service.ts`, import.meta.url).href)) as {
    service: AnyDefinition;
  };
  return module.service;
}

export async function startService<C extends ConfigKeys, K extends KafkaUse | undefined, S extends object>(
  definition: ServiceDefinition<C, K, S>,
  overrides?: TestServiceOverrides<S>,
): Promise<TestService>;
export async function startService(name: ServiceName, overrides?: TestServiceOverrides): Promise<TestService>;
export async function startService(
  which: AnyDefinition | ServiceName,
  overrides: TestServiceOverrides = {},
): Promise<TestService> {
  const def = typeof which === "string" ? await definitionOf(which) : which;
  const servers = testServers();
  const schema = overrides.schema ?? uniqueName(def.name.replaceAll("-", "_"));
  const env = {
    DATABASE_URL: servers.databaseUrl,
    REDIS_URL: servers.redisUrl,
    KAFKA_BROKERS: servers.kafkaBrokers.join(","),
    KAFKA_TOPIC_PREFIX: `${schema}.`,
    KAFKA_FETCH_MAX_WAIT_MS: TEST_KAFKA_FETCH_MAX_WAIT_MS,
    SECRET_KEY: TEST_SECRET,
    APP_ENV: "dev",
    RPC_PORT: "0",
    // The scanner-runner's cdxgen, at its pinned install (other services ignore the key).
    CDXGEN_BIN: cdxgenBin(),
    // The scanner-runner asks no public package registry in tests; a test serving one turns it on.
    CURRENCY_ENABLED: "false",
    LICENSE_FETCH_ENABLED: "false",
    ...overrides.env,
  };
  await seedFromTemplate(def, schema, {
    databaseUrl: servers.databaseUrl,
    env,
    testEnv: overrides.env ?? {},
    seamsReplaced: Object.keys(overrides.seams ?? {}).length > 0,
  });
  const instance = await startServiceInstance(def, {
    migrate: true,
    relayPollIntervalMs: TEST_RELAY_POLL_MS,
    ...overrides,
    schema,
    logger: overrides.logger ?? createLogger(`${def.name}-test`, "ERROR"),
    env,
  });
  if (instance.kafka) use(`topics ${instance.kafka.topicPrefix}`);
  use(`schema ${instance.schema}`);
  let transport: Transport | undefined;
  const transportOf = () =>
    (transport ??= instance.url
      ? createGrpcTransport({ baseUrl: instance.url })
      : createRouterTransport(instance.routes, { router: { interceptors: serviceInterceptors(instance) } }));
  return {
    ...instance,
    client: (service) => createClient(service, transportOf()),
    async close() {
      await instance.close(1000);
      // Instances of one test may share a topic prefix (a stack) or a schema (a second worker): the last one to
      // close clears them, so that none loses its topics or tables while it is still closing.
      if (instance.kafka && lastUser(`topics ${instance.kafka.topicPrefix}`)) await deleteTopicsOf(instance.kafka);
      if (lastUser(`schema ${instance.schema}`)) await dropSchema(instance.schema);
    },
  };
}

// How many open instances of this test file use a topic prefix or a schema.
const users = new Map<string, number>();

function use(resource: string): void {
  users.set(resource, (users.get(resource) ?? 0) + 1);
}

/** Counts one user of the resource out; true when it was the last. */
function lastUser(resource: string): boolean {
  const left = (users.get(resource) ?? 1) - 1;
  if (left > 0) users.set(resource, left);
  else users.delete(resource);
  return left <= 0;
}

function dropSchema(schema: string): Promise<unknown> {
  return withTestDatabase((db) => db.em.getConnection().execute(`drop schema if exists "${schema}" cascade`));
}
