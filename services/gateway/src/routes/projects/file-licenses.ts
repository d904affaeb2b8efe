// A project's first-party license detections: GET /v1/projects/{id}/licenses/files. What the scancode stage of a
// source scan found in the tree's own files (docs/scancode.md), one row per license match with the file's path and
// scancode's match score, beside the stage's outcome (a timeout or a skip says the scan kept declared licenses only).
import { z } from "zod";
import type { FileLicenseDetection, FileLicenseStage } from "@sca/proto/sca/projects/v1/file_licenses_pb.ts";
import { offsetPagination } from "../../api/pagination.ts";
import { snapshotAnchorQuery } from "../../api/query-params.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { PROJECT_PAGE_SIZE } from "@sca/paging";

const TAGS = ["license findings"];

const fileLicenseQuery = snapshotAnchorQuery.extend({
  path: z.string().max(1000).optional().meta({ description: "Case-insensitive part of the file's path" }),
});

const fileLicenseSchema = z
  .object({
    path: z.string().meta({ description: "The file's path relative to the scanned tree's root" }),
    license: z.string().meta({ description: "SPDX license expression of the match" }),
    score: z.number().meta({ description: "scancode's match score, 0..100" }),
    start_line: z.number().int(),
    end_line: z.number().int(),
    matcher: z.string().meta({ description: "How scancode matched (1-hash, 1-spdx-id, 2-aho, 3-seq, ...)" }),
    rule: z.string().meta({ description: "The scancode rule that matched" }),
  })
  .meta({ id: "FileLicenseDetection" });

const stageSchema = z
  .object({
    status: z.enum(["completed", "timed_out", "skipped", "dropped", "failed"]),
    message: z.string(),
    file_count: z.number().int(),
    scanned_file_count: z.number().int().meta({ description: "Files scancode read; the others came from its cache" }),
    truncated: z.boolean().meta({ description: "More detections were found than SCANCODE_MAX_DETECTIONS" }),
  })
  .meta({ id: "FileLicenseStage" });

function detectionJson(d: FileLicenseDetection) {
  return {
    path: d.path,
    license: d.license,
    score: d.score,
    start_line: d.startLine,
    end_line: d.endLine,
    matcher: d.matcher,
    rule: d.rule,
  };
}

function stageJson(s: FileLicenseStage | undefined) {
  if (!s) return null;
  return {
    status: s.status as z.output<typeof stageSchema>["status"],
    message: s.message,
    file_count: s.fileCount,
    scanned_file_count: s.scannedFileCount,
    truncated: s.truncated,
  };
}

export function fileLicenseRoutes(ctx: GatewayContext): Route[] {
  const fileLicenses = ctx.clients.projects.fileLicenses;
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/licenses/files",
      summary: "List a project's first-party license detections",
      description:
        "The licenses scancode found in the files of the anchor's source tree (scan_id wins over release; neither: " +
        "the newest succeeded scan), one per match with the file's path and the match score, in (path, line, " +
        "license) order, and what the stage did (null: it did not run, e.g. an uploaded SBOM).",
      tags: TAGS,
      operationId: "listFileLicenseDetections",
      auth: ctx.auth.route("caller"),
      request: {
        params: z.object({ id: z.uuid() }),
        query: offsetPagination.query(PROJECT_PAGE_SIZE).extend(fileLicenseQuery.shape),
      },
      responses: {
        200: {
          description: "A page of first-party license detections with the stage's outcome",
          schema: offsetPagination
            .envelope(fileLicenseSchema)
            .extend({ scan_id: z.uuid().nullable(), scancode: stageSchema.nullable() }),
        },
        404: problemResponse("No such project (or not readable), or no succeeded scan for scan_id / release"),
        422: problemResponse("A query parameter is not valid"),
      },
      handler: async ({ params, query, call }) => {
        const page = await fileLicenses.listFileLicenses(
          {
            projectId: params.id,
            anchor: { scanId: query.scan_id, release: query.release },
            path: query.path,
            limit: query.limit,
            offset: query.offset,
          },
          call,
        );
        return {
          status: 200,
          body: {
            ...offsetPagination.page(page.items.map(detectionJson), page.total, query),
            scan_id: page.scanId || null,
            scancode: stageJson(page.stage),
          },
        };
      },
    }),
  ];
}
