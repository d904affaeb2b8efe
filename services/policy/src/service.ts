// The policy service: license policies over the built-in SPDX catalog (docs/license-policies.md,
// docs/license-catalog.md). main.ts runs it; tests start it through the test kit.
import { serviceAddressKeys, type KeySpec } from "@sca/config";
import { TOPICS } from "@sca/kafka";
import { defineService, SERVICES } from "@sca/runtime";
import { identityDirectory } from "./clients/directory.ts";
import { projectsLicenseInventory } from "./clients/license-inventory.ts";
import { announceExpiredExceptions } from "./events/exception-expiries.ts";
import { registerLicensePolicyService } from "./rpc/license-policy-service.ts";
import { registerObligationService } from "./rpc/obligation-service.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";

interface PolicySeams {
  /** How often expired license exceptions are looked for; tests shorten it. */
  exceptionExpiryCheckEveryMs: number;
}

const seams: PolicySeams = { exceptionExpiryCheckEveryMs: 60_000 };

export const service = defineService({
  name: "policy",
  seams,
  config: {
    ...(serviceAddressKeys("identity", SERVICES.identity) as { IDENTITY_RPC_URL: KeySpec<string> }),
    ...(serviceAddressKeys("projects", SERVICES.projects) as { PROJECTS_RPC_URL: KeySpec<string> }),
  },
  entities,
  migrations,
  kafka: { outbox: true, produces: [TOPICS.domainEvents, TOPICS.auditEvents] },
  start: ({ orm, secretKey, config, kafka }) => {
    const directory = identityDirectory(config.IDENTITY_RPC_URL, secretKey);
    return (router) => {
      registerLicensePolicyService(router, { orm, directory, wakeRelay: () => kafka.wakeRelay() });
      const inventory = projectsLicenseInventory(config.PROJECTS_RPC_URL, secretKey);
      registerObligationService(router, { orm, inventory, wakeRelay: () => kafka.wakeRelay() });
    };
  },
  jobs: ({ orm, logger, kafka, seams }) => [
    {
      name: "license exception expiry",
      everyMs: seams.exceptionExpiryCheckEveryMs,
      run: async (signal) => {
        const announced = await announceExpiredExceptions(orm, new Date(), signal);
        if (announced > 0) {
          kafka.wakeRelay();
          logger.info({ announced }, "announced policies whose license exceptions expired");
        }
      },
    },
  ],
});
