// FileLicenseService: the scancode stage's first-party license detections (docs/scancode.md). The scanner-runner
// records them per scan (a `service` caller, as IngestInventory); people read a snapshot's, hidden as 404 when they
// may not read the project (readable-inventory.ts).
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { FieldViolation } from "@sca/problem";
import {
  FileLicenseService,
  ListFileLicensesResponseSchema,
  RecordFileLicensesResponseSchema,
} from "@sca/proto/sca/projects/v1/file_licenses_pb.ts";
import { requireService } from "@sca/rpc";
import { rejectViolations } from "../domain/component-list.ts";
import { isUuid } from "../domain/project-fields.ts";
import { fileLicensePage, fileLicenseStageOf, recordFileLicenses } from "../store/file-licenses.ts";
import { anchoredSnapshot, anchorViolations, readableProjectId } from "./readable-inventory.ts";
import { PROJECT_PAGE_SIZE } from "@sca/paging";

/** The only caller of RecordFileLicenses. */
export const FILE_LICENSE_CALLER = "scanner-runner";
/** SCANCODE_MAX_DETECTIONS' own ceiling: what one record may carry. */
export const RECORD_MAX_DETECTIONS = 1_000_000;
const STATUSES = new Set(["completed", "timed_out", "skipped", "dropped", "failed"]);

export function registerFileLicenseService(router: ConnectRouter, deps: { orm: MikroORM }): void {
  router.service(FileLicenseService, {
    async recordFileLicenses(req, ctx: HandlerContext) {
      requireService(ctx, FILE_LICENSE_CALLER);
      const v: FieldViolation[] = [];
      if (!isUuid(req.scanId)) v.push({ path: "scan_id", message: "must be a UUID" });
      if (!isUuid(req.projectId)) v.push({ path: "project_id", message: "must be a UUID" });
      if (!req.stage || !STATUSES.has(req.stage.status))
        v.push({ path: "stage.status", message: `must be one of ${[...STATUSES].join(", ")}` });
      if (req.detections.length > RECORD_MAX_DETECTIONS)
        v.push({ path: "detections", message: `at most ${RECORD_MAX_DETECTIONS}` });
      req.detections.forEach((d, i) => {
        if (!d.path || !d.license) v.push({ path: `detections[${i}]`, message: "needs a path and a license" });
        else if (!(d.score >= 0 && d.score <= 100))
          v.push({ path: `detections[${i}].score`, message: "must be within 0..100" });
      });
      rejectViolations(v);
      const stage = req.stage!;
      const count = await recordFileLicenses(
        deps.orm,
        { scanId: req.scanId.toLowerCase(), projectId: req.projectId.toLowerCase() },
        {
          status: stage.status,
          message: stage.message,
          fileCount: stage.fileCount,
          scannedFileCount: stage.scannedFileCount,
          truncated: stage.truncated,
        },
        req.detections.map((d) => ({
          path: d.path,
          license: d.license,
          score: d.score,
          startLine: d.startLine,
          endLine: d.endLine,
          matcher: d.matcher.slice(0, 32),
          rule: d.rule.slice(0, 255),
        })),
      );
      return create(RecordFileLicensesResponseSchema, { detectionCount: count });
    },

    async listFileLicenses(req, ctx: HandlerContext) {
      const projectId = await readableProjectId(deps, ctx, req.projectId);
      const v: FieldViolation[] = [];
      anchorViolations(req.anchor, v);
      if (req.limit < 1 || req.limit > PROJECT_PAGE_SIZE.maxSize)
        v.push({ path: "query.limit", message: `must be 1..${PROJECT_PAGE_SIZE.maxSize}` });
      if (req.offset < 0) v.push({ path: "query.offset", message: "must not be negative" });
      rejectViolations(v);
      const snapshot = await anchoredSnapshot(deps, projectId, req.anchor);
      if (!snapshot) return create(ListFileLicensesResponseSchema, { scanId: "", total: 0 });
      const em = deps.orm.em.fork();
      const stage = await fileLicenseStageOf(em, snapshot.scanId);
      const path = req.path?.trim();
      const page = await fileLicensePage(em, snapshot.scanId, path ? { path } : {}, {
        limit: req.limit,
        offset: req.offset,
      });
      return create(ListFileLicensesResponseSchema, {
        scanId: snapshot.scanId,
        stage: stage ?? undefined,
        items: page.items,
        total: page.total,
      });
    },
  });
}
