// The identity service: accounts and sessions, SSO, the directory, API keys and the caller resolution the gateway
// asks for. main.ts runs it; tests start it through the test kit.
import { TOPICS } from "@sca/kafka";
import { createRedis } from "@sca/redis";
import { defineService } from "@sca/runtime";
import { identityKeys } from "./config.ts";
import type { CustomFetch } from "openid-client";
import { registerAccessService } from "./rpc/access-service.ts";
import { registerAccountService } from "./rpc/account-service.ts";
import { registerAdminUserService } from "./rpc/admin-user-service.ts";
import { registerApiKeyService } from "./rpc/api-key-service.ts";
import { registerDirectoryService } from "./rpc/directory-service.ts";
import { registerDirectoryLookupService } from "./rpc/directory-lookup-service.ts";
import { createProviderClients } from "./clients/sso-providers.ts";
import { registerSsoService } from "./rpc/sso-service.ts";
import { ACCESS_ANSWER_NAMESPACE, redisAccessAnswerCache } from "./store/access-answer-cache.ts";
import { API_KEY_ANSWER_NAMESPACE, redisApiKeyAnswerCache } from "./store/api-key-answer-cache.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";
import { sweepSessionState } from "./store/session-sweep.ts";
import { applyProjectEvent, PROJECT_COPY_GROUP, projectEvents } from "./events/project-copy.ts";
import { countRequestedScan, countsForSomeone, SCAN_COUNT_GROUP, scanStateNews } from "./events/scan-count.ts";

export interface IdentitySeams {
  /** How SSO reaches the identity providers (the platform's fetch; a test provider's trusts its test CA). */
  providerFetch?: CustomFetch;
  /** Where the cached API-key answers it shares with the gateway live in Redis. */
  apiKeyAnswerNamespace: string;
  /** Where the cached access-token answers it shares with the gateway live in Redis. */
  accessAnswerNamespace?: string;
}

const seams: IdentitySeams = { apiKeyAnswerNamespace: API_KEY_ANSWER_NAMESPACE };

export const service = defineService({
  name: "identity",
  config: identityKeys,
  entities,
  migrations,
  kafka: { outbox: true, produces: [TOPICS.domainEvents, TOPICS.auditEvents], consumes: [TOPICS.domainEvents] },
  seams,
  start: (ctx) => {
    const { orm, secretKey, logger, config, seams } = ctx;
    ctx.kafka.consume({ groupId: PROJECT_COPY_GROUP, topic: projectEvents, handle: applyProjectEvent });
    ctx.kafka.consume({
      groupId: SCAN_COUNT_GROUP,
      topic: scanStateNews,
      handle: countRequestedScan,
      acts: countsForSomeone,
      batched: true,
    });
    const redis = createRedis(config.REDIS_URL, logger);
    ctx.addCloser("redis", () => redis.quit());
    const apiKeyAnswers = redisApiKeyAnswerCache(redis, logger, seams.apiKeyAnswerNamespace);
    const accessAnswers = redisAccessAnswerCache(redis, logger, seams.accessAnswerNamespace ?? ACCESS_ANSWER_NAMESPACE);
    const accounts = { orm, secretKey, settings: config, accessAnswers };
    return (router) => {
      registerAccountService(router, accounts);
      registerAdminUserService(router, { ...accounts, apiKeyAnswers });
      registerAccessService(router, { orm, secretKey, groupCascade: config.GROUP_CASCADE_ENABLED });
      registerDirectoryService(router, { orm, apiKeyAnswers, accessAnswers });
      registerDirectoryLookupService(router, { orm, groupCascade: config.GROUP_CASCADE_ENABLED });
      registerApiKeyService(router, { orm, secretKey, apiKeyAnswers, groupCascade: config.GROUP_CASCADE_ENABLED });
      registerSsoService(router, {
        orm,
        secretKey,
        logger,
        config,
        accessAnswers,
        sessions: { secretKey, settings: config },
        clients: createProviderClients({
          timeoutSeconds: config.OAUTH_HTTP_TIMEOUT_SECONDS,
          fetch: seams.providerFetch,
        }),
      });
    };
  },
  jobs: ({ orm, config, logger }) => [
    {
      // Replicas may sweep at once: the deletes are idempotent.
      name: "session sweep",
      everyMs: 86_400_000,
      run: async () => logger.info({ deleted: await sweepSessionState(orm, config) }, "swept expired session state"),
    },
  ],
});
