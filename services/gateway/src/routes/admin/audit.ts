// The audit log (AuditService): GET /v1/admin/audit and its CSV for a super_admin (everyone else 404, as every admin
// route), and GET /v1/teams/{team_id}/audit, the team-scoped search for a person who is team_admin or above there.
import { z } from "zod";
import { NUMBERED_PAGE_SIZE } from "@sca/paging";
import { pageSizePagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { csvDownload } from "../../http/csv.ts";
import { AUDIT_CSV_COLUMNS, auditEntryJson, auditEntrySchema, auditFilterOf, auditFilterQuery } from "./views.ts";

const listQuery = pageSizePagination.query(NUMBERED_PAGE_SIZE).extend(auditFilterQuery.shape);
const listAnswer = pageSizePagination
  .envelope(auditEntrySchema)
  .extend({ has_more: z.boolean().meta({ description: "Whether entries follow this page" }) });

export function auditRoutes(ctx: GatewayContext): Route[] {
  const audit = ctx.clients.admin.audit;
  return [
    defineRoute({
      method: "get",
      path: "/v1/admin/audit",
      summary: "Search the audit log, newest first",
      description:
        "Every service's audited actions, append-only and hash-chained (docs/audit.md). Every filter narrows.",
      tags: ["admin: audit"],
      operationId: "adminListAudit",
      auth: ctx.auth.route("super_admin"),
      request: { query: listQuery },
      responses: { 200: { description: "A page of audit entries", schema: listAnswer } },
      handler: async ({ query, call }) => {
        const list = await audit.listAuditEntries(
          { filter: auditFilterOf(query), page: pageSizePagination.request(query) },
          call,
        );
        return {
          status: 200,
          body: {
            ...pageSizePagination.page(list.items.map(auditEntryJson), list.page?.total ?? 0, query),
            has_more: list.hasMore,
          },
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/admin/audit/export.csv",
      summary: "Export the audit log as CSV",
      description: `The entries GET /v1/admin/audit answers for the same filters, newest first, unpaged, at most 100000 (the newest). Columns: ${AUDIT_CSV_COLUMNS.join(", ")} (details as JSON).`,
      tags: ["admin: audit"],
      operationId: "adminExportAuditCsv",
      auth: ctx.auth.route("super_admin"),
      request: { query: auditFilterQuery },
      responses: {
        200: {
          description: "CSV, a header line then one line per entry",
          schema: z.string(),
          contentType: "text/csv",
          stream: true,
        },
      },
      handler: ({ query, call }) => {
        return csvDownload(
          "audit.csv",
          AUDIT_CSV_COLUMNS,
          () => audit.exportAuditEntries({ filter: auditFilterOf(query) }, call),
          auditEntryJson,
        );
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/teams/{team_id}/audit",
      summary: "Search a team's audit entries, newest first",
      description:
        "The entries of GET /v1/admin/audit that belong to the team, with the same filters and answer, for a person who is team_admin or above on the team (or a super_admin).",
      tags: ["audit"],
      operationId: "listTeamAudit",
      auth: ctx.auth.route("caller"),
      request: { params: z.object({ team_id: z.uuid() }), query: listQuery },
      responses: {
        200: { description: "A page of the team's audit entries", schema: listAnswer },
        404: problemResponse("No such team, or the caller is not its team_admin"),
      },
      handler: async ({ params, query, call }) => {
        const list = await audit.listTeamAuditEntries(
          { teamId: params.team_id, filter: auditFilterOf(query), page: pageSizePagination.request(query) },
          call,
        );
        return {
          status: 200,
          body: {
            ...pageSizePagination.page(list.items.map(auditEntryJson), list.page?.total ?? 0, query),
            has_more: list.hasMore,
          },
        };
      },
    }),
  ];
}
