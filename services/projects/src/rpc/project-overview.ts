// GetProjectOverview: the parts of GET /v1/projects/{id}/overview projects holds (docs/projects.md, "Overview"): the
// project's own fields, the caller's role, the scan-fed times, and the figures of the anchored snapshot. The anchor
// follows the component list's rules; a project the caller may not read is hidden (404), as the anchors want.
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
import { mayRead, roleOnTeam } from "../domain/project-access.ts";
import { isUuid } from "../domain/project-fields.ts";
import { overviewFigures } from "../domain/project-overview.ts";
import { componentGroups } from "../store/inventory-summary.ts";
import { newestSnapshot, snapshotOfScan } from "../store/inventory-reads.ts";
import { lastSucceededAt } from "../store/known-scans.ts";
import { projectById } from "../store/projects.ts";
import type { ProjectHandlers, ProjectServiceDeps } from "./project-deps.ts";

const RELEASE_MAX = 255;

/** The caller's effective role on the team: super_admin for a super_admin, else the (cascaded) team role, or none. */
function currentRole(caller: Caller, teamId: string): string | undefined {
  if (isSuperAdmin(caller)) return "super_admin";
  return roleOnTeam(caller, teamId) ?? undefined;
}

export function projectOverviewHandlers(deps: ProjectServiceDeps): ProjectHandlers<"getProjectOverview"> {
  return {
    async getProjectOverview(req: GetProjectOverviewRequest, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      const notFound = () => ProblemError.notFound("No such project.");
      if (!isUuid(req.projectId)) throw notFound();
      const em = deps.orm.em.fork();
      const project = await projectById(em, req.projectId.toLowerCase());
      if (!project || !mayRead(caller, project)) throw notFound();

      const v: FieldViolation[] = [];
      if (req.scanId !== undefined && !isUuid(req.scanId)) v.push({ path: "query.scan_id", message: "must be a UUID" });
      if (req.release !== undefined && [...req.release.trim()].length > RELEASE_MAX)
        v.push({ path: "query.release", message: `must be at most ${RELEASE_MAX} characters` });
      if (v.length) throw ProblemError.validation(v);

      // The component list's anchor: scan_id over release over the newest snapshot.
      let scanId: string | null;
      if (req.scanId !== undefined) {
        scanId = await snapshotOfScan(em, project.id, req.scanId.toLowerCase());
        if (!scanId) throw ProblemError.notFound("No succeeded scan of this project has that id.");
      } else if (req.release !== undefined) {
        scanId = await newestSnapshot(em, project.id, req.release.trim());
        if (!scanId) throw ProblemError.notFound("No succeeded scan of this project carries that release.");
      } else scanId = await newestSnapshot(em, project.id);

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
