// VulnerabilityFindingService: this file registers; the use cases live in vulnerability-findings.ts (list, detail,
// triage), finding-confirmation.ts (the second person), vex.ts (export, import) and external-lookups.ts.
import type { ConnectRouter } from "@connectrpc/connect";
import { VulnerabilityFindingService } from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import { externalLookupHandlers } from "./external-lookups.ts";
import { findingConfirmationHandlers } from "./finding-confirmation.ts";
import { vexHandlers } from "./vex.ts";
import { findingHandlers, type FindingServiceDeps } from "./vulnerability-findings.ts";

export function registerFindingService(router: ConnectRouter, deps: FindingServiceDeps): void {
  router.service(VulnerabilityFindingService, {
    ...findingHandlers(deps),
    ...findingConfirmationHandlers(deps),
    ...vexHandlers(deps),
    ...externalLookupHandlers(deps),
  });
}
