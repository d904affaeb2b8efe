// GET /v1/projects/{id}/overview: projects answers the project's figures (GetProjectOverview: the anchored
// snapshot's distributions, counts and scores, the caller's role, the scan times); the scan-orchestrator the
// project's newest scans. Members read; a project the caller may not read is 404 (docs/projects.md, "Overview").
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { z } from "zod";
import type { ProjectOverview } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import type { Scan } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import { FINDING_SEVERITIES } from "@sca/vocabulary";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { scanJson, scanSchema } from "../scans/views.ts";

/** How many of the project's newest scans recent_scans holds. */
export const RECENT_SCANS = 10;

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);
const counts = () => z.record(z.string(), z.number().int());
const score = () => z.number().int().min(0).max(100);

const overviewSchema = z
  .object({
    component_outcome: z
      .object({ with_known_issues: z.number().int(), without_known_issues: z.number().int() })
      .meta({ description: "Components of the snapshot with and without a known problem" }),
    current_user_role: z.string().nullable().meta({
      description: "The caller's role on the project's team (super_admin for one); null: organization reader",
    }),
    eol_count: z.number().int(),
    has_git_credential: z.boolean(),
    last_scan_at: z.iso.datetime().nullable().meta({ description: "created_at of the project's newest scan" }),
    last_succeeded_scan_at: z.iso.datetime().nullable(),
    license_distribution: counts().meta({
      description: "allowed, conditional, forbidden, uncategorized -> components",
    }),
    license_score: score(),
    malicious_count: z.number().int(),
    outdated_count: z.number().int(),
    project_id: z.uuid(),
    project_name: z.string(),
    recent_scans: z
      .array(scanSchema)
      .meta({ description: `The project's ${RECENT_SCANS} newest scans (empty for a reader not on its team)` }),
    risk_score: score().meta({ description: "0: nothing known to be wrong" }),
    security_score: score().meta({ description: "100: nothing known to be wrong" }),
    severity_distribution: counts().meta({ description: `${FINDING_SEVERITIES.join(", ")} -> components` }),
    total_components: z.number().int(),
  })
  .meta({ id: "ProjectOverview" });

function overviewJson(o: ProjectOverview, recent: Scan[]): z.input<typeof overviewSchema> {
  return {
    component_outcome: {
      with_known_issues: o.componentOutcome.with_known_issues ?? 0,
      without_known_issues: o.componentOutcome.without_known_issues ?? 0,
    },
    current_user_role: o.currentUserRole ?? null,
    eol_count: o.eolCount,
    has_git_credential: o.hasGitCredential,
    last_scan_at: iso(o.lastScanAt),
    last_succeeded_scan_at: iso(o.lastSucceededScanAt),
    license_distribution: o.licenseDistribution,
    license_score: o.licenseScore,
    malicious_count: o.maliciousCount,
    outdated_count: o.outdatedCount,
    project_id: o.projectId,
    project_name: o.projectName,
    recent_scans: recent.map(scanJson),
    risk_score: o.riskScore,
    security_score: o.securityScore,
    severity_distribution: o.severityDistribution,
    total_components: o.totalComponents,
  };
}

export function projectOverviewRoutes(ctx: GatewayContext): Route[] {
  const projects = ctx.clients.projects.projects;
  const scans = ctx.clients["scan-orchestrator"].scans;
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/overview",
      summary: "A project's overview",
      description:
        "Members (and organization readers). The figures are of the components list's anchor: scan_id (a succeeded " +
        "scan of the project) over release (the newest succeeded scan carrying the label) over the newest snapshot. " +
        "Counts of problems no stage assessed yet are 0 and the scores say nothing is known to be wrong.",
      tags: ["projects"],
      operationId: "getProjectOverview",
      auth: ctx.auth.route("caller"),
      request: {
        params: z.object({ id: z.uuid() }),
        query: z.object({
          scan_id: z
            .uuid()
            .optional()
            .meta({ description: "A succeeded scan of the project (else 404); wins over release" }),
          release: z.string().max(255).optional().meta({ description: "Exact release label, trimmed (unknown: 404)" }),
        }),
      },
      responses: {
        200: { description: "The overview", schema: overviewSchema },
        404: problemResponse("No such project (or not readable), or no succeeded scan for scan_id / release"),
      },
      handler: async ({ params, query, call }) => {
        const { overview } = await projects.getProjectOverview(
          { projectId: params.id, scanId: query.scan_id, release: query.release },
          call,
        );
        let recent: Scan[] = [];
        try {
          recent = (
            await scans.listProjectScans(
              { projectId: params.id, status: "", kind: "", page: { page: 1, pageSize: RECENT_SCANS } },
              call,
            )
          ).items;
        } catch (err) {
          // A reader through organization visibility reads the project, not its scans.
          if (ConnectError.from(err).code !== Code.PermissionDenied) throw err;
        }
        return { status: 200, body: overviewJson(overview!, recent) };
      },
    }),
  ];
}
