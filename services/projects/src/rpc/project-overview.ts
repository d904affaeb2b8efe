// GetProjectOverview: the parts of GET /v1/projects/{id}/overview projects holds (docs/projects.md, "Overview"): the
// project's own fields, the caller's role, the scan-fed times, and the figures of the anchored snapshot. The anchor
// and the hiding are the component list's own (readable-inventory.ts).
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "@connectrpc/connect";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  GetProjectOverviewResponseSchema,
  ProjectOverviewSchema,
  type GetProjectOverviewRequest,
} from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { isSuperAdmin, requireCaller, type Caller } from "@sca/rpc";
import { roleOnTeam } from "../domain/project-access.ts";
import { overviewFigures } from "../domain/project-overview.ts";
import { componentGroups } from "../store/inventory/summary.ts";
import { lastSucceededAt } from "../store/known-scans.ts";
import type { ProjectHandlers, ProjectServiceDeps } from "./project-deps.ts";
import { anchoredSnapshot, anchorViolations, readableProject } from "./readable-inventory.ts";

/** The caller's effective role on the team: super_admin for a super_admin, else the (cascaded) team role, or none. */
function currentRole(caller: Caller, teamId: string): string | undefined {
  if (isSuperAdmin(caller)) return "super_admin";
  return roleOnTeam(caller, teamId) ?? undefined;
}

export function projectOverviewHandlers(deps: ProjectServiceDeps): ProjectHandlers<"getProjectOverview"> {
  return {
    async getProjectOverview(req: GetProjectOverviewRequest, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      const project = await readableProject(deps, ctx, req.projectId);
      const anchor = { scanId: req.scanId, release: req.release };
      const v: FieldViolation[] = [];
      anchorViolations(anchor, v);
      if (v.length) throw ProblemError.validation(v);
      const scanId = (await anchoredSnapshot(deps, project.id, anchor))?.scanId;
      const em = deps.orm.em.fork();

      const f = overviewFigures(scanId ? await componentGroups(em, scanId) : []);
      const succeededAt = await lastSucceededAt(em, project.id);
      return create(GetProjectOverviewResponseSchema, {
        overview: create(ProjectOverviewSchema, {
          projectId: project.id,
          projectName: project.name,
          currentUserRole: currentRole(caller, project.teamId),
          hasGitCredential: project.hasGitCredential,
          lastScanAt: project.lastScanAt ? timestampFromDate(project.lastScanAt) : undefined,
          lastSucceededScanAt: succeededAt ? timestampFromDate(succeededAt) : undefined,
          totalComponents: f.totalComponents,
          severityDistribution: f.severityDistribution,
          licenseDistribution: f.licenseDistribution,
          componentOutcome: f.componentOutcome,
          eolCount: f.eolCount,
          outdatedCount: f.outdatedCount,
          maliciousCount: f.maliciousCount,
          securityScore: f.securityScore,
          licenseScore: f.licenseScore,
          riskScore: f.riskScore,
        }),
      });
    },
  };
}
