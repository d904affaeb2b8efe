// What the ProjectService's use cases need, and the shape of a group of its handlers.
import type { ServiceImpl } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import type { Directory } from "../clients/directory.ts";

export interface ProjectServiceDeps {
  orm: MikroORM;
  directory: Directory;
  /** The key git credentials are sealed with (@sca/secret-box). */
  credentialKey: Buffer;
  /** Publishes the events a change just committed without waiting for the relay's next poll. */
  wakeRelay(): void;
}

/** Some of the ProjectService's methods, typed as the service declares them. */
export type ProjectHandlers<K extends keyof ServiceImpl<typeof ProjectService>> = Pick<
  ServiceImpl<typeof ProjectService>,
  K
>;
