// Reading scans: one scan (members of its team), the caller's own list (GET /v1/scans) and the admin queue
// (GET /v1/admin/scans). What the caller may not read is NotFound, and lists hold only what it may read.
import { create } from "@bufbuild/protobuf";
import { NUMBERED_PAGE_SIZE, pageInfo, pageOf } from "@sca/paging";
import { ProblemError } from "@sca/problem";
import {
  AdminListScansResponseSchema,
  GetScanResponseSchema,
  ListScansResponseSchema,
} from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import { requireCaller, requireSuperAdmin } from "@sca/rpc";
import { isUuid } from "../domain/batch.ts";
import { mayReadScan, scanVisibility } from "../domain/scan-access.ts";
import * as scans from "../store/scans.ts";
import { filterId, kindFilter, pathId, statusFilter } from "./fields.ts";
import type { ScanHandlers, ScanServiceDeps } from "./scan-deps.ts";
import { scanView } from "./scan-views.ts";

export function scanReadHandlers(deps: ScanServiceDeps): ScanHandlers<"getScan" | "listScans" | "adminListScans"> {
  const fork = () => deps.orm.em.fork();

  return {
    async getScan(req, ctx) {
      const caller = requireCaller(ctx);
      const scan = await scans.scanById(fork(), pathId(req.scanId));
      if (!scan) throw ProblemError.notFound("No such scan.");
      if (!mayReadScan(caller, scan)) {
        // Hidden (404) unless the caller may know the scan's project exists: its owner shows it to them (an
        // organization-visible project of their organization). They are not in the team that owns the scan, the
        // spec's 403 (WebSocket close 4403); hiding a scan of a project they can see would hide nothing.
        const project = await deps.projects.project(caller, scan.projectId);
        if (project.found)
          throw new ProblemError({
            status: 403,
            code: "forbidden",
            detail: "The scan belongs to a team you are not in.",
          });
        throw ProblemError.notFound("No such scan.");
      }
      return create(GetScanResponseSchema, { scan: scanView(scan) });
    },

    async listScans(req, ctx) {
      const caller = requireCaller(ctx);
      const p = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const filter = {
        status: statusFilter(req.status),
        kind: kindFilter(req.kind),
        projectId: filterId(req.projectId, "query.project_id"),
        projectText: null,
      };
      const visible = scanVisibility(caller);
      if (
        !visible.all &&
        visible.projectId !== null &&
        filter.projectId !== null &&
        filter.projectId !== visible.projectId
      ) {
        return create(ListScansResponseSchema, { items: [], page: pageInfo(p, 0) });
      }
      const { rows, total } = await scans.listScans(
        fork(),
        {
          ...filter,
          teamIds: visible.all ? null : visible.teamIds,
          projectId: visible.all ? filter.projectId : (visible.projectId ?? filter.projectId),
        },
        p.limit,
        p.offset,
      );
      return create(ListScansResponseSchema, { items: rows.map(scanView), page: pageInfo(p, total) });
    },

    async adminListScans(req, ctx) {
      requireSuperAdmin(ctx);
      const p = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const project = req.project.trim();
      const { rows, total } = await scans.listScans(
        fork(),
        {
          teamIds: null,
          status: statusFilter(req.status),
          kind: kindFilter(req.kind),
          projectId: isUuid(project) ? project.toLowerCase() : null,
          projectText: project !== "" && !isUuid(project) ? project : null,
        },
        p.limit,
        p.offset,
      );
      return create(AdminListScansResponseSchema, { items: rows.map(scanView), page: pageInfo(p, total) });
    },
  };
}
