// ApiKeyService: issue, list, revoke, narrow, and the admin hash statistics. Only people manage keys. This file
// registers; the use cases live in api-key-issue.ts, api-key-management.ts and api-key-stats.ts.
import type { ConnectRouter } from "@connectrpc/connect";
import { ApiKeyService } from "@sca/proto/sca/identity/v1/api_keys_pb.ts";
import type { ApiKeyServiceDeps } from "./api-key-deps.ts";
import { issueApiKeyHandlers } from "./api-key-issue.ts";
import { apiKeyManagementHandlers } from "./api-key-management.ts";
import { apiKeyStatsHandlers } from "./api-key-stats.ts";

export type { ApiKeyServiceDeps } from "./api-key-deps.ts";

export function registerApiKeyService(router: ConnectRouter, deps: ApiKeyServiceDeps): void {
  router.service(ApiKeyService, {
    ...issueApiKeyHandlers(deps),
    ...apiKeyManagementHandlers(deps),
    ...apiKeyStatsHandlers(deps),
  });
}
