// AuditService: this file registers; the use cases live in audit-list.ts, audit-team-list.ts and audit-export.ts.
import type { ConnectRouter } from "@connectrpc/connect";
import { AuditService } from "@sca/proto/sca/admin/v1/audit_pb.ts";
import type { AuditServiceDeps } from "./audit-deps.ts";
import { auditExportHandlers } from "./audit-export.ts";
import { auditListHandlers } from "./audit-list.ts";
import { auditTeamListHandlers } from "./audit-team-list.ts";

export type { AuditServiceDeps } from "./audit-deps.ts";

export function registerAuditService(router: ConnectRouter, deps: AuditServiceDeps): void {
  router.service(AuditService, {
    ...auditListHandlers(deps),
    ...auditTeamListHandlers(deps),
    ...auditExportHandlers(deps),
  });
}
