// CrashReportService: a signed-in caller's crash report recorded with the request id and who sent it; the list for
// a super_admin. The report's text goes to the table only: the log line names the report, never its message or
// stack (which may hold what the page showed).
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "@sca/log";
import { currentRequestId } from "@sca/log";
import { NUMBERED_PAGE_SIZE, pageInfo, pageOf } from "@sca/paging";
import {
  CrashReportSchema,
  CrashReportService,
  ListCrashReportsResponseSchema,
  RecordCrashReportResponseSchema,
} from "@sca/proto/sca/admin/v1/crash_reports_pb.ts";
import { requireCaller, requireSuperAdmin } from "@sca/rpc";
import { listCrashReports, recordCrashReport, type CrashReportRow } from "../store/crash-reports.ts";

const view = (r: CrashReportRow) => create(CrashReportSchema, { ...r, receivedAt: timestampFromDate(r.receivedAt) });

// PostgreSQL text cannot hold NUL.
const storable = (text: string) => text.replaceAll("\0", "");

export function registerCrashReportService(router: ConnectRouter, deps: { orm: MikroORM; logger: Logger }): void {
  router.service(CrashReportService, {
    async recordCrashReport(req, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      const row: CrashReportRow = {
        id: randomUUID(),
        receivedAt: new Date(),
        requestId: currentRequestId() ?? "",
        userId: caller.user_id ?? "",
        userEmail: caller.email ?? "",
        clientIp: caller.ip ?? "",
        userAgent: caller.user_agent ?? "",
        message: storable(req.message),
        url: storable(req.url),
        stack: storable(req.stack),
        componentStack: storable(req.componentStack),
      };
      await recordCrashReport(deps.orm.em.fork(), row);
      deps.logger.info({ crash_report_id: row.id, user_id: row.userId }, "web UI crash report recorded");
      return create(RecordCrashReportResponseSchema, { id: row.id });
    },
    async listCrashReports(req, ctx: HandlerContext) {
      requireSuperAdmin(ctx);
      const page = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const { rows, total } = await listCrashReports(deps.orm.em.fork(), page.limit, page.offset);
      return create(ListCrashReportsResponseSchema, { items: rows.map(view), page: pageInfo(page, total) });
    },
  });
}
