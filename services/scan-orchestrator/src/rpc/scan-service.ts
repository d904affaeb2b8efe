// ScanService: every method, registered one by one (router.rpc). Those naming a project ask projects for it
// (clients/projects.ts, project-access.ts).
import type { ConnectRouter } from "@connectrpc/connect";
import { ScanService } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import { scanAdminHandlers } from "./scan-admin.ts";
import { projectScanListHandlers } from "./project-scan-lists.ts";
import { scanCreateHandlers } from "./scan-create.ts";
import type { ScanServiceDeps } from "./scan-deps.ts";
import { scanReadHandlers } from "./scan-reads.ts";
import { scanUploadHandlers } from "./scan-uploads.ts";

export type { ScanServiceDeps } from "./scan-deps.ts";

export function registerScanService(router: ConnectRouter, deps: ScanServiceDeps): void {
  const reads = scanReadHandlers(deps);
  const admin = scanAdminHandlers(deps);
  router.rpc(ScanService.method.getScan, reads.getScan);
  router.rpc(ScanService.method.listScans, reads.listScans);
  router.rpc(ScanService.method.adminListScans, reads.adminListScans);
  router.rpc(ScanService.method.adminCancelScan, admin.adminCancelScan);
  const creating = scanCreateHandlers(deps);
  router.rpc(ScanService.method.createScan, creating.createScan);
  router.rpc(ScanService.method.batchCreateScans, creating.batchCreateScans);
  router.rpc(ScanService.method.createWebhookScan, creating.createWebhookScan);
  const lists = projectScanListHandlers(deps);
  router.rpc(ScanService.method.listProjectScans, lists.listProjectScans);
  router.rpc(ScanService.method.listProjectReleases, lists.listProjectReleases);
  const registering = scanUploadHandlers(deps);
  router.rpc(ScanService.method.registerSbomUpload, registering.registerSbomUpload);
  router.rpc(ScanService.method.registerSourceArchive, registering.registerSourceArchive);
  router.rpc(ScanService.method.registerImageArchive, registering.registerImageArchive);
}
