// npm remediation (RemediationService; the spec's "Remediation (npm)", docs/scm.md): the dry-run, the pull request and
// the list of a project's remediation pull requests.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { NUMBERED_PAGE_SIZE } from "@sca/paging";
import type { RemediationPullRequest } from "@sca/proto/sca/projects/v1/remediation_pb.ts";
import { z } from "zod";
import { pageSizePagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

const WARNING_CODES = [
  "lockfile_regeneration_required",
  "package_not_present",
  "value_not_string",
  "unparseable_range",
  "already_satisfied",
  "target_unparseable",
  "duplicate_keys_collapsed",
] as const;

const dryRunSchema = z
  .object({
    project_id: z.uuid(),
    scan_id: z.uuid().nullable().meta({ description: "The snapshot the recommendations come from" }),
    ecosystem: z.literal("npm"),
    manifest_source: z.enum(["override", "preserved_source", "none"]),
    manifest_found: z.boolean(),
    changed: z.boolean(),
    edited_manifest: z.string().optional().meta({ description: "Present only when changed" }),
    recommendations: z.array(
      z.object({ package: z.string(), current_version: z.string(), recommended_version: z.string() }),
    ),
    changes: z.array(
      z.object({
        package: z.string(),
        section: z.string(),
        before: z.string(),
        after: z.string(),
        changed: z.boolean(),
      }),
    ),
    warnings: z.array(z.object({ code: z.enum(WARNING_CODES), package: z.string().nullable(), detail: z.string() })),
    notes: z.array(z.string()),
  })
  .meta({ id: "NpmRemediationDryRun" });

const STATUSES = ["creating", "open", "failed", "superseded"] as const;

const pullRequestSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    ecosystem: z.literal("npm"),
    repository_full_name: z.string(),
    head_branch: z.string(),
    base_branch: z.string(),
    pr_number: z.number().int().nullable(),
    pr_url: z.string().nullable(),
    pr_state: z
      .enum(["open", "closed", "merged"])
      .nullable()
      .meta({ description: "The host's state of the pull request as last read (the list reads open ones again)" }),
    status: z.enum(STATUSES),
    package_changes: z.array(z.object({ package: z.string(), from: z.string(), to: z.string() })),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "RemediationPullRequest" });

const pullRequestJson = (r: RemediationPullRequest) => ({
  id: r.id,
  project_id: r.projectId,
  ecosystem: "npm" as const,
  repository_full_name: r.repositoryFullName,
  head_branch: r.headBranch,
  base_branch: r.baseBranch,
  pr_number: r.prNumber === undefined ? null : Number(r.prNumber),
  pr_url: r.prUrl ?? null,
  pr_state: (r.prState ?? null) as "open" | "closed" | "merged" | null,
  status: r.status as (typeof STATUSES)[number],
  package_changes: r.packageChanges.map((c) => ({ package: c.package, from: c.from, to: c.to })),
  created_at: timestampDate(r.createdAt!).toISOString(),
  updated_at: timestampDate(r.updatedAt!).toISOString(),
});

const projectParams = z.object({ project_id: z.uuid() });

/** The RPC request of a route taking `manifest`: absent and null both mean "not given". */
const manifestRequest = (projectId: string, body: { manifest?: string | null } | undefined) => {
  const manifest = body?.manifest ?? undefined;
  return { projectId, ...(manifest === undefined ? {} : { manifest }) };
};

const manifestBody = z
  .object({
    manifest: z
      .string()
      .max(1024 * 1024)
      .nullable()
      .optional(),
  })
  .optional();

export function remediationRoutes(ctx: GatewayContext): Route[] {
  const remediation = ctx.clients.projects.remediation;
  return [
    defineRoute({
      method: "post",
      path: "/v1/projects/{project_id}/remediation/npm/pull-request",
      summary: "Open the npm remediation pull request of a project",
      description:
        "team_admin of the project's team. On the repository of the project's opted-in app installation: a branch " +
        "`<service_name>/remediation-<short_fingerprint>` off the default branch, one commit editing package.json " +
        "(the dry-run's edit of `manifest`, or of the repository's package.json), and a pull request naming the " +
        "bumps. 201 new, 200 the open one with the same bumps, 204 nothing to remediate.",
      tags: ["Remediation"],
      operationId: "npmRemediationPullRequest",
      auth: ctx.auth.route("caller"),
      request: { params: projectParams, body: manifestBody },
      responses: {
        200: { description: "The open pull request with the same bumps", schema: pullRequestSchema },
        201: { description: "The new pull request", schema: pullRequestSchema },
        204: { description: "Nothing to remediate" },
        401: problemResponse("No valid credential"),
        403: problemResponse("Not team_admin of the project's team"),
        404: problemResponse("No such project"),
        409: problemResponse("The project is not opted in (not_opted_in)"),
        422: problemResponse("The manifest or the stored repository is unusable"),
        502: problemResponse("The source host refused a write (remote_write_failed; its status only)"),
      },
      handler: async ({ params, body, call }) => {
        const a = await remediation.npmPullRequest(manifestRequest(params.project_id, body), call);
        if (a.outcome === "nothing" || !a.pullRequest) return { status: 204 as const };
        return {
          status: a.outcome === "created" ? (201 as const) : (200 as const),
          body: pullRequestJson(a.pullRequest),
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/projects/{project_id}/remediation/pull-requests",
      summary: "List a project's remediation pull requests",
      description: "Any member of the project's team; newest first.",
      tags: ["Remediation"],
      operationId: "listRemediationPullRequests",
      auth: ctx.auth.route("caller"),
      request: { params: projectParams, query: pageSizePagination.query(NUMBERED_PAGE_SIZE) },
      responses: {
        200: {
          description: "A page of records",
          schema: pageSizePagination.envelope(pullRequestSchema).meta({ id: "RemediationPullRequestPage" }),
        },
        401: problemResponse("No valid credential"),
        403: problemResponse("Not a member of the project's team"),
        404: problemResponse("No such project"),
      },
      handler: async ({ params, query, call }) => {
        const a = await remediation.listRemediationPullRequests(
          { projectId: params.project_id, ...pageSizePagination.request(query) },
          call,
        );
        return { status: 200, body: pageSizePagination.page(a.items.map(pullRequestJson), Number(a.total), query) };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/projects/{project_id}/remediation/npm/dry-run",
      summary: "Preview the npm remediation of a project",
      description:
        "developer+ on the project's team. The package.json edit that moves each vulnerable npm package of the " +
        "newest scan to its fix (the spec's range-rewrite rules); nothing is persisted. `manifest` (raw package.json) " +
        "overrides the preserved scan source; without either, manifest_source is none.",
      tags: ["Remediation"],
      operationId: "npmRemediationDryRun",
      auth: ctx.auth.route("caller"),
      request: { params: projectParams, body: manifestBody },
      responses: {
        200: { description: "The preview", schema: dryRunSchema },
        401: problemResponse("No valid credential"),
        403: problemResponse("Not developer+ on the project's team"),
        404: problemResponse("No such project"),
        422: problemResponse("The manifest is not a JSON object"),
      },
      handler: async ({ params, body, call }) => {
        const a = await remediation.npmDryRun(manifestRequest(params.project_id, body), call);
        return {
          status: 200,
          body: {
            project_id: a.projectId,
            scan_id: a.scanId ?? null,
            ecosystem: "npm" as const,
            manifest_source: a.manifestSource as "override" | "preserved_source" | "none",
            manifest_found: a.manifestFound,
            changed: a.changed,
            ...(a.editedManifest === undefined ? {} : { edited_manifest: a.editedManifest }),
            recommendations: a.recommendations.map((r) => ({
              package: r.package,
              current_version: r.currentVersion,
              recommended_version: r.recommendedVersion,
            })),
            changes: a.changes.map((c) => ({
              package: c.package,
              section: c.section,
              before: c.before,
              after: c.after,
              changed: c.changed,
            })),
            warnings: a.warnings.map((w) => ({
              code: w.code as (typeof WARNING_CODES)[number],
              package: w.package ?? null,
              detail: w.detail,
            })),
            notes: a.notes,
          },
        };
      },
    }),
  ];
}
