// A project's scans (ListProjectScans) and releases (ListProjectReleases), read by the members of its team.
import { create } from "@bufbuild/protobuf";
import { NUMBERED_PAGE_SIZE, pageInfo, pageOf, pageSizeRule } from "@sca/paging";
import { ProblemError } from "@sca/problem";
import {
  ListProjectReleasesResponseSchema,
  ListProjectScansResponseSchema,
} from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import { requireCaller } from "@sca/rpc";
import { releaseListFilterOf } from "../domain/release.ts";
import * as scans from "../store/scans.ts";
import { kindFilter, statusFilter } from "./fields.ts";
import { projectAccess } from "./project-access.ts";
import type { ScanHandlers, ScanServiceDeps } from "./scan-deps.ts";
import { scanView } from "./scan-views.ts";

/** The spec's releases list: page and size, 20 by default, 100 at most. */
const RELEASE_PAGE_SIZE = pageSizeRule({ defaultSize: 20, maxSize: 100 });

export function projectScanListHandlers(
  deps: ScanServiceDeps,
): ScanHandlers<"listProjectScans" | "listProjectReleases"> {
  const projects = projectAccess(deps);
  return {
    async listProjectScans(req, ctx) {
      const project = await projects.ofScanReader(requireCaller(ctx), req.projectId);
      const p = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const { rows, total } = await scans.listScans(
        deps.orm.em.fork(),
        {
          teamIds: null,
          projectId: project.id,
          status: statusFilter(req.status),
          kind: kindFilter(req.kind),
          projectText: null,
        },
        p.limit,
        p.offset,
      );
      return create(ListProjectScansResponseSchema, { items: rows.map(scanView), page: pageInfo(p, total) });
    },

    async listProjectReleases(req, ctx) {
      const project = await projects.ofScanReader(requireCaller(ctx), req.projectId);
      const reading = releaseListFilterOf(req.release, req.ref);
      if (!reading.ok) throw ProblemError.validation(reading.violations);
      const p = pageOf(req.page, RELEASE_PAGE_SIZE, { page: "query.page", pageSize: "query.size" });
      const { rows, total } = await scans.listReleases(
        deps.orm.em.fork(),
        project.id,
        reading.filter,
        p.limit,
        p.offset,
      );
      return create(ListProjectReleasesResponseSchema, { items: rows.map(scanView), page: pageInfo(p, total) });
    },
  };
}
