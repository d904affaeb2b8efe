// ListAuditEntries: a page of the whole log, newest first, for a super_admin (anyone else: NotFound).
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { NUMBERED_PAGE_SIZE, pageInfo, pageOf } from "@sca/paging";
import { ListAuditEntriesResponseSchema, type ListAuditEntriesRequest } from "@sca/proto/sca/admin/v1/audit_pb.ts";
import { requireSuperAdmin } from "@sca/rpc";
import { listEntries } from "../store/audit-log.ts";
import type { AuditHandlers, AuditServiceDeps } from "./audit-deps.ts";
import { auditQuery, entryView } from "./audit-views.ts";

export function auditListHandlers(deps: AuditServiceDeps): AuditHandlers<"listAuditEntries"> {
  return {
    async listAuditEntries(req: ListAuditEntriesRequest, ctx: HandlerContext) {
      requireSuperAdmin(ctx);
      const query = auditQuery(req.filter);
      const page = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const { rows, total } = await listEntries(deps.orm.em.fork(), query, page.limit, page.offset);
      return create(ListAuditEntriesResponseSchema, {
        items: rows.map(entryView),
        page: pageInfo(page, total),
        hasMore: page.offset + rows.length < total,
      });
    },
  };
}
