// The projects service: projects of teams (and, next, their inventory). main.ts runs it; tests start it through
// the test kit.
import { serviceAddressKeys } from "@sca/config";
import { TOPICS } from "@sca/kafka";
import { defineService, SERVICES } from "@sca/runtime";
import { secretBoxKey } from "@sca/secret-box";
import { identityDirectory } from "./clients/directory.ts";
import { registerProjectService } from "./rpc/project-service.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";

export const service = defineService({
  name: "projects",
  config: { ...serviceAddressKeys("identity", SERVICES.identity) },
  entities,
  migrations,
  kafka: { outbox: true, produces: [TOPICS.domainEvents, TOPICS.auditEvents] },
  start: ({ orm, secretKey, config, kafka }) => {
    const directory = identityDirectory(config.IDENTITY_RPC_URL!, secretKey);
    const credentialKey = secretBoxKey(secretKey, "git-credential", "sca-projects");
    return (router) => {
      registerProjectService(router, { orm, directory, credentialKey, wakeRelay: () => kafka.wakeRelay() });
    };
  },
});
