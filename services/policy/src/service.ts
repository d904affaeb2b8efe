// The policy service: license policies over the built-in SPDX catalog (docs/license-policies.md,
// docs/license-catalog.md). main.ts runs it; tests start it through the test kit.
import { serviceAddressKeys, type KeySpec } from "@sca/config";
import { TOPICS } from "@sca/kafka";
import { defineService, SERVICES } from "@sca/runtime";
import { identityDirectory } from "./clients/directory.ts";
import { registerLicensePolicyService } from "./rpc/license-policy-service.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";

export const service = defineService({
  name: "policy",
  config: {
    ...(serviceAddressKeys("identity", SERVICES.identity) as { IDENTITY_RPC_URL: KeySpec<string> }),
  },
  entities,
  migrations,
  kafka: { outbox: true, produces: [TOPICS.domainEvents, TOPICS.auditEvents] },
  start: ({ orm, secretKey, config, kafka }) => {
    const directory = identityDirectory(config.IDENTITY_RPC_URL, secretKey);
    return (router) => {
      registerLicensePolicyService(router, { orm, directory, wakeRelay: () => kafka.wakeRelay() });
    };
  },
});
