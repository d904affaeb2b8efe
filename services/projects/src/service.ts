// The projects service: projects of teams and their component inventory. main.ts runs it; tests start it through
// the test kit.
import { openArtefactStore } from "@sca/artefacts";
import { artefactStoreKeys, keys, serviceAddressKeys, type KeySpec } from "@sca/config";
import { TOPICS } from "@sca/kafka";
import { defineService, SERVICES } from "@sca/runtime";
import { secretBoxKey } from "@sca/secret-box";
import { identityDirectory } from "./clients/directory.ts";
import { policyLicenseCategories } from "./clients/license-categories.ts";
import {
  LICENSE_POLICY_FEED_GROUP,
  licensePolicyFeedHandler,
  licensePolicyNews,
} from "./events/license-policy-feed.ts";
import { SCAN_FEED_GROUP, scanFeedHandler, scanNews } from "./events/scan-feed.ts";
import { registerFindingService } from "./rpc/finding-service.ts";
import { registerInventoryService } from "./rpc/inventory-service.ts";
import { registerLicenseInventoryService } from "./rpc/license-inventory.ts";
import { registerProjectService } from "./rpc/project-service.ts";
import { registerSbomExportService } from "./rpc/sbom-export.ts";
import { registerVulnerabilityMatchService } from "./rpc/vulnerability-matches.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";

export const service = defineService({
  name: "projects",
  config: {
    ...(serviceAddressKeys("identity", SERVICES.identity) as { IDENTITY_RPC_URL: KeySpec<string> }),
    ...(serviceAddressKeys("policy", SERVICES.policy) as { POLICY_RPC_URL: KeySpec<string> }),
    ...artefactStoreKeys,
    JSONB_ROW_SIZE_LIMIT_BYTES: keys.JSONB_ROW_SIZE_LIMIT_BYTES,
    EXTERNAL_PACKAGE_LOOKUP_ENABLED: keys.EXTERNAL_PACKAGE_LOOKUP_ENABLED,
  },
  entities,
  migrations,
  kafka: { outbox: true, produces: [TOPICS.domainEvents, TOPICS.auditEvents], consumes: [TOPICS.domainEvents] },
  start: async ({ orm, secretKey, config, kafka, logger, ...ctx }) => {
    await kafka.consume({ groupId: SCAN_FEED_GROUP, topic: scanNews, handle: scanFeedHandler(logger) });
    await kafka.consume({
      groupId: LICENSE_POLICY_FEED_GROUP,
      topic: licensePolicyNews,
      handle: licensePolicyFeedHandler(policyLicenseCategories(config.POLICY_RPC_URL, secretKey), logger),
    });
    const directory = identityDirectory(config.IDENTITY_RPC_URL, secretKey);
    const credentialKey = secretBoxKey(secretKey, "git-credential", "sca-projects");
    const artefacts = openArtefactStore(config);
    ctx.addCloser("artefact store", () => Promise.resolve(artefacts.close()));
    return (router) => {
      registerProjectService(router, { orm, directory, credentialKey, wakeRelay: () => kafka.wakeRelay() });
      const inventory = { orm, artefacts, rawDataMaxBytes: config.JSONB_ROW_SIZE_LIMIT_BYTES, credentialKey };
      registerInventoryService(router, inventory);
      registerSbomExportService(router, inventory);
      registerLicenseInventoryService(router, inventory);
      const wakeRelay = () => kafka.wakeRelay();
      registerVulnerabilityMatchService(router, { orm, wakeRelay });
      registerFindingService(router, {
        orm,
        wakeRelay,
        externalLookupEnabled: config.EXTERNAL_PACKAGE_LOOKUP_ENABLED,
      });
    };
  },
});
