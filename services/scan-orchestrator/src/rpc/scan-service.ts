// ScanService: the methods that need no other service are registered one by one (router.rpc), so a method not
// built yet is not served at all rather than answering Unimplemented from a stub. CreateScan, ListProjectScans,
// BatchCreateScans and the upload registrations need the project's team and existence from projects: next step.
import type { ConnectRouter } from "@connectrpc/connect";
import { ScanService } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import { scanAdminHandlers } from "./scan-admin.ts";
import type { ScanServiceDeps } from "./scan-deps.ts";
import { scanReadHandlers } from "./scan-reads.ts";

export type { ScanServiceDeps } from "./scan-deps.ts";

export function registerScanService(router: ConnectRouter, deps: ScanServiceDeps): void {
  const reads = scanReadHandlers(deps);
  const admin = scanAdminHandlers(deps);
  router.rpc(ScanService.method.getScan, reads.getScan);
  router.rpc(ScanService.method.listScans, reads.listScans);
  router.rpc(ScanService.method.adminListScans, reads.adminListScans);
  router.rpc(ScanService.method.adminCancelScan, admin.adminCancelScan);
}
