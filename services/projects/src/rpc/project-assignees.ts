// ProjectAssigneeService: the people work on a project may be assigned to (docs/approvals.md, "Project assignees"):
// the project is read here (404 / 403 as GetProject), the people are identity's, asked at read time.
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import {
  ListProjectAssigneesResponseSchema,
  ProjectAssigneeSchema,
  ProjectAssigneeService,
} from "@sca/proto/sca/projects/v1/project_assignees_pb.ts";
import { requireCaller } from "@sca/rpc";
import { mayRead } from "../domain/project-access.ts";
import { readableProject } from "./project-lookup.ts";
import type { ProjectServiceDeps } from "./project-deps.ts";

export function registerProjectAssigneeService(
  router: ConnectRouter,
  deps: Pick<ProjectServiceDeps, "orm" | "directory">,
): void {
  router.service(ProjectAssigneeService, {
    async listProjectAssignees(req, ctx) {
      const caller = requireCaller(ctx);
      const project = await readableProject(deps, caller, req.projectId, mayRead);
      const people = await deps.directory.assignees(caller, project.teamId);
      return create(ListProjectAssigneesResponseSchema, {
        members: people.map((p) =>
          create(ProjectAssigneeSchema, {
            userId: p.userId,
            displayName: p.displayName,
            role: p.role,
            viaTeamId: p.viaTeamId,
          }),
        ),
        total: people.length,
      });
    },
  });
}
