// ScannerToolService: the installed scanner tools' versions, for admin's health panel only.
import type { ConnectRouter } from "@connectrpc/connect";
import { ScannerToolService } from "@sca/proto/sca/scannerrunner/v1/scanner_tools_pb.ts";
import { requireService } from "@sca/rpc";
import { scannerToolVersions } from "../tools/tool-versions.ts";

export function registerScannerToolService(router: ConnectRouter, bins: { cdxgen: string; scancode: string }): void {
  router.service(ScannerToolService, {
    async getScannerTools(_req, ctx) {
      requireService(ctx, "admin");
      return { tools: await scannerToolVersions(bins) };
    },
  });
}
