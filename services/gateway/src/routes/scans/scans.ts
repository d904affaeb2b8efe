// Scans (ScanService of the scan-orchestrator): create on a project (202, queued), a project's scans, the caller's
// scans, one scan, the batch, and the admin queue with cancel. Roles are the service's: any member reads, developer+
// creates; the admin routes are super_admin only.
import { z } from "zod";
import { pageSizeRule } from "@sca/paging";
import { pageSizePagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { demoReadOnlyProblem, sandboxScanPath } from "../../http/demo-read-only.ts";
import {
  SCAN_KINDS,
  SCAN_STATUSES,
  scanBatchResultJson,
  scanBatchResultSchema,
  scanJson,
  scanSchema,
} from "./views.ts";

const TAGS = ["scans"];
/** docs/scans.md: page/page_size, 50 by default, 200 at most. */
export const SCAN_PAGE_SIZE = pageSizeRule({ defaultSize: 50, maxSize: 200 });
const filters = {
  status: z.enum(SCAN_STATUSES).optional(),
  kind: z.enum(SCAN_KINDS).optional(),
};
const projectParams = z.object({ id: z.uuid() });
const scanParams = z.object({ id: z.uuid() });
const scanPage = pageSizePagination.envelope(scanSchema);

/** The answer of the three scan lists: a page of the service's scans in the scan shape. */
function scanPageOf(
  list: { items: Parameters<typeof scanJson>[0][]; page?: { total: number } },
  query: { page: number; page_size: number },
) {
  return pageSizePagination.page(list.items.map(scanJson), list.page?.total ?? 0, query);
}

const createBody = z
  .object({
    kind: z.enum(SCAN_KINDS).default("source"),
    ref: z.string().max(512).default("").meta({
      description: "Branch, fully qualified ref or commit; for container scans the image reference (required)",
    }),
    metadata: z
      .record(z.string(), z.unknown())
      .default({})
      .meta({ description: "Free JSON object (16 KiB at most); metadata.release labels the scan" }),
    sbom_upload_id: z.uuid().optional().meta({ description: "kind sbom: the upload_id of POST .../sbom-uploads" }),
    source_archive_id: z
      .uuid()
      .optional()
      .meta({ description: "kind source: the archive_id of POST .../source-archives, scanned instead of cloning" }),
    image_archive_id: z
      .uuid()
      .optional()
      .meta({
        description:
          "kind container: the archive_id of POST .../image-archives, read instead of pulling (ref then optional: it " +
          "picks the image of an archive holding several)",
      }),
  })
  .meta({ id: "ScanCreate" });

/** What a sandbox scan may ask: a source scan of the project's repository (no upload, archive or image). */
const sandboxScanAllowed = (body: z.output<typeof createBody>) =>
  body.kind === "source" && !body.source_archive_id && !body.image_archive_id && !body.sbom_upload_id;

export function scanRoutes(ctx: GatewayContext): Route[] {
  const scans = ctx.clients["scan-orchestrator"].scans;
  const sandboxPath = sandboxScanPath(ctx.config);
  // One bucket for every visitor: the demo's sandbox is bounded as a whole, whoever asks.
  const sandboxLimit = sandboxPath
    ? ctx.rateLimit({ name: "demo-sandbox-scans", ...ctx.config.DEMO_SANDBOX_SCAN_RATE_LIMIT, key: () => "sandbox" })
    : null;
  const caller = ctx.auth.route("caller");
  return [
    defineRoute({
      method: "post",
      path: "/v1/projects/{id}/scans",
      summary: "Start a scan of a project",
      description:
        "developer or above on the project's team. 202 with the queued scan. A `sbom` scan names an upload " +
        "(sbom_upload_id); without one it is created failed at once with an error_message. 429 (Retry-After, " +
        "retry_after_seconds) past the team's concurrent-scan cap; 503 (type .../disk-pressure) at the disk hard limit.",
      tags: TAGS,
      operationId: "createScan",
      auth: caller,
      request: { params: projectParams, body: createBody },
      responses: {
        202: { description: "The scan", schema: scanSchema },
        403: problemResponse(
          "Below developer on the project's team, or not a member; in a read-only demo, a sandbox scan that is not " +
            "a source scan of the project's repository (demo_read_only)",
        ),
        404: problemResponse("No such project"),
        409: problemResponse("The project is archived"),
        429: problemResponse("The team's concurrent-scan cap is reached"),
        503: problemResponse("Disk pressure: new scans are refused"),
      },
      middleware: sandboxLimit ? [sandboxLimit] : [],
      handler: async ({ params, body, call }) => {
        // The demo's sandbox (the only scan path demo read-only lets through) scans its own repository only.
        if (sandboxPath && !sandboxScanAllowed(body))
          throw demoReadOnlyProblem("The demo's sandbox project runs source scans of its own repository only.");
        const { scan } = await scans.createScan(
          {
            projectId: params.id,
            kind: body.kind,
            ref: body.ref,
            metadata: body.metadata as never,
            sbomUploadId: body.sbom_upload_id,
            sourceArchiveId: body.source_archive_id,
            imageArchiveId: body.image_archive_id,
          },
          call,
        );
        return { status: 202, body: scanJson(scan!) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/scans",
      summary: "List a project's scans",
      description: "Members of the project's team; newest first.",
      tags: TAGS,
      operationId: "listProjectScans",
      auth: caller,
      request: { params: projectParams, query: pageSizePagination.query(SCAN_PAGE_SIZE).extend(filters) },
      responses: {
        200: { description: "A page of scans", schema: scanPage },
        403: problemResponse("Not a member of the project's team"),
        404: problemResponse("No such project"),
      },
      handler: async ({ params, query, call }) => {
        const list = await scans.listProjectScans(
          {
            projectId: params.id,
            status: query.status ?? "",
            kind: query.kind ?? "",
            page: pageSizePagination.request(query),
          },
          call,
        );
        return { status: 200, body: scanPageOf(list, query) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/scans",
      summary: "List the caller's scans",
      description:
        "Scans of the projects of the caller's teams (an API key: what its grant reaches; super_admin: all), newest first.",
      tags: TAGS,
      operationId: "listScans",
      auth: caller,
      request: {
        query: pageSizePagination.query(SCAN_PAGE_SIZE).extend({ ...filters, project_id: z.uuid().optional() }),
      },
      responses: { 200: { description: "A page of scans", schema: scanPage } },
      handler: async ({ query, call }) => {
        const list = await scans.listScans(
          {
            status: query.status ?? "",
            kind: query.kind ?? "",
            projectId: query.project_id ?? "",
            page: pageSizePagination.request(query),
          },
          call,
        );
        return { status: 200, body: scanPageOf(list, query) };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/scans:batch",
      summary: "Start a source scan of up to 200 projects",
      description:
        "Rows in order, each independent: created, already_exists (a queued or running scan of the project and ref; " +
        "its scan_id), forbidden (not developer on the team, or no such project), invalid (not a UUID, archived), " +
        "rate_limited (the team cap, re-counted per row; retry_after_seconds). 201 when every row is created or " +
        "already_exists, else 207. Disk pressure refuses the whole batch (503).",
      tags: TAGS,
      operationId: "batchCreateScans",
      auth: caller,
      request: {
        body: z.object({ project_ids: z.array(z.string()).min(1).max(200), ref: z.string().max(512).default("") }),
      },
      responses: {
        201: { description: "Every row succeeded", schema: scanBatchResultSchema },
        207: { description: "At least one row failed", schema: scanBatchResultSchema },
        503: problemResponse("Disk pressure: new scans are refused"),
      },
      handler: async ({ body, call }) => {
        const answer = await scans.batchCreateScans({ projectIds: body.project_ids, ref: body.ref }, call);
        return { status: answer.allSucceeded ? 201 : 207, body: scanBatchResultJson(answer) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/scans/{id}",
      summary: "Get a scan",
      description:
        "Members of the scan's project's team. A member of the organization of an organization-visible project who is " +
        "not in its team gets 403; others get 404, as for an unknown scan.",
      tags: TAGS,
      operationId: "getScan",
      auth: caller,
      request: { params: scanParams },
      responses: {
        200: { description: "The scan", schema: scanSchema },
        403: problemResponse("The project is visible to the caller, the scan's team is not theirs"),
        404: problemResponse("No such scan"),
      },
      handler: async ({ params, call }) => {
        const { scan } = await scans.getScan({ scanId: params.id }, call);
        return { status: 200, body: scanJson(scan!) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/admin/scans",
      summary: "The global scan queue",
      description: "super_admin. Newest first; project is a project id or text within the project's name or slug.",
      tags: TAGS,
      operationId: "adminListScans",
      auth: ctx.auth.route("super_admin"),
      request: {
        query: pageSizePagination.query(SCAN_PAGE_SIZE).extend({ ...filters, project: z.string().max(255).optional() }),
      },
      responses: { 200: { description: "A page of scans", schema: scanPage } },
      handler: async ({ query, call }) => {
        const list = await scans.adminListScans(
          {
            status: query.status ?? "",
            kind: query.kind ?? "",
            project: query.project ?? "",
            page: pageSizePagination.request(query),
          },
          call,
        );
        return { status: 200, body: scanPageOf(list, query) };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/admin/scans/{scan_id}/cancel",
      summary: "Cancel a scan",
      description:
        "super_admin. A queued or running scan becomes cancelled (the worker stops at its next stage boundary); a " +
        "cancelled one is answered unchanged; a succeeded or failed one is 409 scan_finished.",
      tags: TAGS,
      operationId: "adminCancelScan",
      auth: ctx.auth.route("super_admin"),
      request: { params: z.object({ scan_id: z.uuid() }) },
      responses: {
        200: { description: "The scan", schema: scanSchema },
        404: problemResponse("No such scan"),
        409: problemResponse("The scan already finished"),
      },
      handler: async ({ params, call }) => {
        const { scan } = await scans.adminCancelScan({ scanId: params.scan_id }, call);
        return { status: 200, body: scanJson(scan!) };
      },
    }),
  ];
}
