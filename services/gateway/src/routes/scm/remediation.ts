// npm remediation (RemediationService; the spec's "Remediation (npm)", docs/scm.md): the dry-run.
import { z } from "zod";
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

export function remediationRoutes(ctx: GatewayContext): Route[] {
  const remediation = ctx.clients.projects.remediation;
  return [
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
      request: {
        params: z.object({ project_id: z.uuid() }),
        body: z
          .object({
            manifest: z
              .string()
              .max(1024 * 1024)
              .nullable()
              .optional(),
          })
          .optional(),
      },
      responses: {
        200: { description: "The preview", schema: dryRunSchema },
        401: problemResponse("No valid credential"),
        403: problemResponse("Not developer+ on the project's team"),
        404: problemResponse("No such project"),
        422: problemResponse("The manifest is not a JSON object"),
      },
      handler: async ({ params, body, call }) => {
        const manifest = body?.manifest ?? undefined;
        const a = await remediation.npmDryRun(
          { projectId: params.project_id, ...(manifest === undefined ? {} : { manifest }) },
          call,
        );
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
