// ListTeamAuditEntries: a page of one team's entries (the entry's team_id), newest first, for a person who is
// team_admin or above on the team, or a super_admin; anyone else is told nothing exists (NotFound).
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { NUMBERED_PAGE_SIZE, pageInfo, pageOf } from "@sca/paging";
import { ProblemError } from "@sca/problem";
import {
  ListTeamAuditEntriesResponseSchema,
  type ListTeamAuditEntriesRequest,
} from "@sca/proto/sca/admin/v1/audit_pb.ts";
import { requireCaller } from "@sca/rpc";
import { mayReadTeamAudit } from "../domain/audit-access.ts";
import { isUuid } from "../domain/audit-entry.ts";
import { listEntries } from "../store/audit-log.ts";
import type { AuditHandlers, AuditServiceDeps } from "./audit-deps.ts";
import { auditQuery, entryView } from "./audit-views.ts";

export function auditTeamListHandlers(deps: AuditServiceDeps): AuditHandlers<"listTeamAuditEntries"> {
  return {
    async listTeamAuditEntries(req: ListTeamAuditEntriesRequest, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      const teamId = req.teamId.toLowerCase();
      if (!isUuid(teamId) || !mayReadTeamAudit(caller, teamId))
        throw ProblemError.notFound("No such team, or the caller is not its team_admin.");
      const query = { ...auditQuery(req.filter), teamId };
      const page = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const { rows, total } = await listEntries(deps.orm.em.fork(), query, page.limit, page.offset);
      return create(ListTeamAuditEntriesResponseSchema, {
        items: rows.map(entryView),
        page: pageInfo(page, total),
        hasMore: page.offset + rows.length < total,
      });
    },
  };
}
