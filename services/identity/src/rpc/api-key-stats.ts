// The admin panel's view of API keys (super_admin; others NotFound): the hash formats of active keys.
import { create } from "@bufbuild/protobuf";
import { GetApiKeyHashStatsResponseSchema } from "@sca/proto/sca/identity/v1/api_keys_pb.ts";
import { requireSuperAdmin } from "@sca/rpc";
import * as keys from "../store/api-keys.ts";
import type { ApiKeyHandlers, ApiKeyServiceDeps } from "./api-key-deps.ts";

export function apiKeyStatsHandlers(deps: ApiKeyServiceDeps): ApiKeyHandlers<"getApiKeyHashStats"> {
  const fork = () => deps.orm.em.fork();
  return {
    async getApiKeyHashStats(_req, ctx) {
      requireSuperAdmin(ctx);
      const s = await keys.apiKeyHashStats(fork());
      return create(GetApiKeyHashStatsResponseSchema, {
        activeTotal: s.activeTotal,
        hmacSha256Count: s.hmacSha256Count,
        legacyBcryptCount: s.legacyBcryptCount,
      });
    },
  };
}
