// What the DirectoryService's use cases need, and the shape of a group of its handlers.
import type { ServiceImpl } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import type { AccessAnswerCache } from "../store/access-answer-cache.ts";
import type { ApiKeyAnswerCache } from "../store/api-key-answer-cache.ts";

export interface DirectoryServiceDeps {
  orm: MikroORM;
  apiKeyAnswers: ApiKeyAnswerCache;
  /** Dropped after every change of memberships, roles or the group tree (what callers carry). */
  accessAnswers: AccessAnswerCache;
}

/** Some of the DirectoryService's methods, typed as the service declares them. */
export type DirectoryHandlers<K extends keyof ServiceImpl<typeof DirectoryService>> = Pick<
  ServiceImpl<typeof DirectoryService>,
  K
>;
