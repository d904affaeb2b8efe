// Wiring of the identity service.
import { keys, loadConfigOrExit } from "@sca/config";
import { createRedis } from "@sca/redis";
import { runService } from "@sca/runtime";
import { registerAccessService } from "./rpc/access-service.ts";
import { registerApiKeyService } from "./rpc/api-key-service.ts";
import { registerDirectoryService } from "./rpc/directory-service.ts";
import { redisApiKeyAnswerCache } from "./store/api-key-answer-cache.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";

const config = loadConfigOrExit({
  GROUP_CASCADE_ENABLED: keys.GROUP_CASCADE_ENABLED,
  ACCESS_TOKEN_EXPIRE_MINUTES: keys.ACCESS_TOKEN_EXPIRE_MINUTES,
  REDIS_URL: keys.REDIS_URL,
});

await runService({
  name: "identity",
  entities,
  migrations,
  start: ({ orm, secretKey, logger, addCloser }) => {
    const redis = createRedis(config.REDIS_URL, logger);
    addCloser("redis", () => redis.quit());
    const apiKeyAnswers = redisApiKeyAnswerCache(redis, logger);
    return (router) => {
      registerAccessService(router, { orm, secretKey, groupCascade: config.GROUP_CASCADE_ENABLED });
      registerDirectoryService(router, { orm, apiKeyAnswers });
      registerApiKeyService(router, { orm, secretKey, apiKeyAnswers });
    };
  },
});
