// Wiring of the identity service.
import { keys, loadConfigOrExit } from "@sca/config";
import { createRedis } from "@sca/redis";
import { TOPICS } from "@sca/kafka";
import { runService } from "@sca/runtime";
import { ssoKeys } from "./domain/sso-settings.ts";
import { registerAccessService } from "./rpc/access-service.ts";
import { registerAccountService } from "./rpc/account-service.ts";
import { accountKeys } from "./rpc/account-settings.ts";
import { registerAdminUserService } from "./rpc/admin-user-service.ts";
import { registerApiKeyService } from "./rpc/api-key-service.ts";
import { registerDirectoryService } from "./rpc/directory-service.ts";
import { createProviderClients } from "./clients/sso-providers.ts";
import { registerSsoService } from "./rpc/sso-service.ts";
import { redisApiKeyAnswerCache } from "./store/api-key-answer-cache.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";
import { scheduleSessionSweep } from "./store/session-sweep.ts";

const config = loadConfigOrExit({
  GROUP_CASCADE_ENABLED: keys.GROUP_CASCADE_ENABLED,
  ACCESS_TOKEN_EXPIRE_MINUTES: keys.ACCESS_TOKEN_EXPIRE_MINUTES,
  REDIS_URL: keys.REDIS_URL,
});
const accountSettings = loadConfigOrExit(accountKeys);
const sso = loadConfigOrExit(ssoKeys);

await runService({
  name: "identity",
  entities,
  migrations,
  kafka: { outbox: true, produces: [TOPICS.domainEvents, TOPICS.auditEvents] },
  start: (ctx) => {
    const { orm, secretKey, logger } = ctx;
    const redis = createRedis(config.REDIS_URL, logger);
    ctx.addCloser("redis", () => redis.quit());
    const apiKeyAnswers = redisApiKeyAnswerCache(redis, logger);
    const stopSweep = scheduleSessionSweep(orm, accountSettings, logger);
    ctx.addCloser("session sweep", () => Promise.resolve(stopSweep()));
    const accounts = { orm, secretKey, settings: accountSettings };
    return (router) => {
      registerAccountService(router, accounts);
      registerAdminUserService(router, { ...accounts, apiKeyAnswers });
      registerAccessService(router, { orm, secretKey, groupCascade: config.GROUP_CASCADE_ENABLED });
      registerDirectoryService(router, { orm, apiKeyAnswers });
      registerApiKeyService(router, { orm, secretKey, apiKeyAnswers, groupCascade: config.GROUP_CASCADE_ENABLED });
      registerSsoService(router, {
        orm, secretKey, logger, config: sso, sessions: { secretKey, settings: accountSettings },
        clients: createProviderClients({ timeoutSeconds: sso.OAUTH_HTTP_TIMEOUT_SECONDS }),
      });
    };
  },
});
