// A domain service as a process: `node src/main.ts` starts its definition (start-service.ts) from the environment
// and drains it on SIGTERM/SIGINT; `node src/main.ts migrate` makes the service's database role when given
// DATABASE_ADMIN_URL, creates the Kafka topics the service declares, applies the schema's migrations and exits.
// A bad configuration value stops it with one line naming the key.
import { exitOnConfigError } from "@sca/config";
import { runMigrateCommand } from "@sca/db";
import { onShutdown } from "@sca/rpc";
import type { ConfigKeys, ServiceDefinition } from "./definition.ts";
import { applyHeapGrowth } from "./heap-growth.ts";
import type { KafkaUse } from "./service-kafka.ts";
import { openServiceInstance, serviceSetup } from "./start-service.ts";

export async function runService<C extends ConfigKeys, K extends KafkaUse | undefined, S extends object>(
  def: ServiceDefinition<C, K, S>,
): Promise<void> {
  if (process.argv[2] === "migrate") {
    const setup = (() => {
      try {
        return serviceSetup(def);
      } catch (err) {
        return exitOnConfigError(err);
      }
    })();
    try {
      await setup.provision();
    } catch (err) {
      setup.logger.error({ err }, "could not make the service's database role and schema");
      process.exit(1);
    }
    const orm = await setup.openOrm();
    try {
      await setup.ensureTopics();
    } catch (err) {
      setup.logger.error({ err }, "could not create the service's Kafka topics");
      await orm.close().catch(() => undefined);
      process.exit(1);
    }
    await runMigrateCommand(orm, setup.logger);
  }

  if (def.heapGrowth) applyHeapGrowth(def.heapGrowth);
  const { instance, closers } = await openServiceInstance(def).catch(exitOnConfigError);
  onShutdown(instance.logger, closers, () => instance.health.markShuttingDown());
}
