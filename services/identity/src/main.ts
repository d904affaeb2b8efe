// Wiring of the identity service.
import { keys, loadConfigOrExit } from "@sca/config";
import { runService } from "@sca/runtime";
import { registerAccessService } from "./rpc/access-service.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";

const config = loadConfigOrExit({
  GROUP_CASCADE_ENABLED: keys.GROUP_CASCADE_ENABLED,
  ACCESS_TOKEN_EXPIRE_MINUTES: keys.ACCESS_TOKEN_EXPIRE_MINUTES,
});

await runService({
  name: "identity",
  entities,
  migrations,
  start: ({ orm, secretKey }) => (router) => {
    registerAccessService(router, { orm, secretKey, groupCascade: config.GROUP_CASCADE_ENABLED });
  },
});
