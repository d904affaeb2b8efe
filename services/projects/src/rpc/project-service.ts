// ProjectService: this file registers; the use cases live in project-creation.ts, project-reads.ts,
// project-changes.ts and project-overview.ts.
import type { ConnectRouter } from "@connectrpc/connect";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { projectChangeHandlers } from "./project-changes.ts";
import { projectCreationHandlers } from "./project-creation.ts";
import type { ProjectServiceDeps } from "./project-deps.ts";
import { projectOverviewHandlers } from "./project-overview.ts";
import { projectReadHandlers } from "./project-reads.ts";

export type { ProjectServiceDeps } from "./project-deps.ts";

export function registerProjectService(router: ConnectRouter, deps: ProjectServiceDeps): void {
  router.service(ProjectService, {
    ...projectCreationHandlers(deps),
    ...projectReadHandlers(deps),
    ...projectChangeHandlers(deps),
    ...projectOverviewHandlers(deps),
  });
}
