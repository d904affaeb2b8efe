// What the ApiKeyService's use cases need, the shape of a group of its handlers, and who may manage keys at all.
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { ProblemError } from "@sca/problem";
import type { ApiKeyService } from "@sca/proto/sca/identity/v1/api_keys_pb.ts";
import { requirePerson, type Person } from "@sca/rpc";
import type { ApiKeyAnswerCache } from "../store/api-key-answer-cache.ts";

export interface ApiKeyServiceDeps {
  orm: MikroORM;
  secretKey: string;
  apiKeyAnswers: ApiKeyAnswerCache;
  /** GROUP_CASCADE_ENABLED: what a team key and a service account's memberships reach. */
  groupCascade: boolean;
}

/** Some of the ApiKeyService's methods, typed as the service declares them. */
export type ApiKeyHandlers<K extends keyof ServiceImpl<typeof ApiKeyService>> = Pick<
  ServiceImpl<typeof ApiKeyService>,
  K
>;

const peopleOnly = () => ProblemError.forbidden("API keys are managed by people, not by other API keys.");

/** Only people issue and manage keys: an API key caller is refused (403). */
export function requireKeyManager(ctx: HandlerContext): Person {
  return requirePerson(ctx, peopleOnly);
}
