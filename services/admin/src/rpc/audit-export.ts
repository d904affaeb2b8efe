// ExportAuditEntries: what ListAuditEntries would answer for the filter, unpaged, streamed in chunks read one at a
// time (keyset), at most EXPORT_MAX_ROWS rows (the newest). super_admin only.
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { ExportAuditEntriesResponseSchema, type ExportAuditEntriesRequest } from "@sca/proto/sca/admin/v1/audit_pb.ts";
import { requireSuperAdmin } from "@sca/rpc";
import { exportEntries } from "../store/audit-log.ts";
import type { AuditHandlers, AuditServiceDeps } from "./audit-deps.ts";
import { auditQuery, entryView } from "./audit-views.ts";

/** Rows per chunk (one query, one message). */
export const EXPORT_CHUNK = 1000;
/** The spec's cap of the audit CSV. */
export const EXPORT_MAX_ROWS = 100_000;

export function auditExportHandlers(deps: AuditServiceDeps): AuditHandlers<"exportAuditEntries"> {
  return {
    async *exportAuditEntries(req: ExportAuditEntriesRequest, ctx: HandlerContext) {
      requireSuperAdmin(ctx);
      const query = auditQuery(req.filter);
      for await (const rows of exportEntries(deps.orm.em.fork(), query, EXPORT_CHUNK, EXPORT_MAX_ROWS)) {
        if (ctx.signal.aborted) return;
        yield create(ExportAuditEntriesResponseSchema, { items: rows.map(entryView) });
      }
    },
  };
}
