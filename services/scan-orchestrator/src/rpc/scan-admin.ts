// Admin cancel (POST /v1/admin/scans/{scan_id}/cancel): a queued or running scan becomes cancelled, in one
// transaction with its state-change event (the worker stops at its next stage boundary when it hears of it) and
// the audit event. Cancelling a cancelled scan answers it unchanged; a finished one is 409 scan_finished.
import { create } from "@bufbuild/protobuf";
import { callerActor } from "@sca/audit";
import { ProblemError } from "@sca/problem";
import { AdminCancelScanResponseSchema } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import { requireSuperAdmin } from "@sca/rpc";
import { applyScanEvent } from "../domain/scan-state.ts";
import { emitAudit, emitScanStateChanged } from "../events/scan-events.ts";
import * as scans from "../store/scans.ts";
import { pathId } from "./fields.ts";
import type { ScanHandlers, ScanServiceDeps } from "./scan-deps.ts";
import { scanView } from "./scan-views.ts";

export function scanAdminHandlers(deps: ScanServiceDeps): ScanHandlers<"adminCancelScan"> {
  return {
    async adminCancelScan(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      const scanId = pathId(req.scanId);
      const { row, changed } = await deps.orm.em.fork().transactional(async (em) => {
        const scan = await scans.lockScan(em, scanId);
        if (!scan) throw ProblemError.notFound("No such scan.");
        const now = new Date();
        // The lease length does not matter here: a cancel never starts a lease.
        const move = applyScanEvent(scan, { type: "cancel" }, now, { leaseSeconds: 0 });
        if (!move.ok) {
          throw new ProblemError({
            status: 409,
            code: "scan_finished",
            detail: `The scan is ${scan.status}; only queued or running scans can be cancelled.`,
            extensions: { status: scan.status },
          });
        }
        if (!move.changed) return { row: scan, changed: false };
        const cancelled = await scans.updateScanRun(em, scan.id, move.next, now);
        emitScanStateChanged(em, cancelled, scan.status, now);
        emitAudit(em, {
          action: "scan.cancelled",
          targetId: scan.id,
          teamId: scan.teamId,
          actor: callerActor(caller),
          outcome: "success",
          at: now,
          details: { project_id: scan.projectId, previous_status: scan.status },
        });
        return { row: cancelled, changed: true };
      });
      if (changed) deps.wakeRelay();
      return create(AdminCancelScanResponseSchema, { scan: scanView(row) });
    },
  };
}
