// The web UI's crash reports (CrashReportService; docs/operations.md): POST by any signed-in caller, rate limited
// per caller (CRASH_REPORT_RATE_LIMIT), stored by admin with the request id and the caller; the list for a
// super_admin (404 to anyone else). The spec gives the body and its limits, not the paths: these are ours.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { CrashReport } from "@sca/proto/sca/admin/v1/crash_reports_pb.ts";
import { NUMBERED_PAGE_SIZE } from "@sca/paging";
import { pageSizePagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { authenticatedOf } from "../../http/authenticate.ts";

/** The most a stack or component stack may carry (ours; the spec bounds message and url only). */
export const CRASH_STACK_MAX = 20_000;

const crashReportSchema = z
  .object({
    id: z.uuid(),
    received_at: z.iso.datetime(),
    request_id: z.string().nullable(),
    user_id: z.string().nullable(),
    user_email: z.string().nullable(),
    client_ip: z.string().nullable(),
    user_agent: z.string().nullable(),
    message: z.string(),
    url: z.string(),
    stack: z.string().nullable(),
    component_stack: z.string().nullable(),
  })
  .meta({ id: "CrashReport" });

const orNull = (s: string) => (s === "" ? null : s);

const crashReportJson = (r: CrashReport): z.output<typeof crashReportSchema> => ({
  id: r.id,
  received_at: timestampDate(r.receivedAt!).toISOString(),
  request_id: orNull(r.requestId),
  user_id: orNull(r.userId),
  user_email: orNull(r.userEmail),
  client_ip: orNull(r.clientIp),
  user_agent: orNull(r.userAgent),
  message: r.message,
  url: r.url,
  stack: orNull(r.stack),
  component_stack: orNull(r.componentStack),
});

export function crashReportRoutes(ctx: GatewayContext): Route[] {
  const reports = ctx.clients.admin.crashReports;
  const rule = ctx.config.CRASH_REPORT_RATE_LIMIT;
  const limit = ctx.rateLimit({
    name: "crash-report",
    ...rule,
    key: (req) => authenticatedOf(req).caller.user_id ?? authenticatedOf(req).caller.api_key_id ?? "",
  });
  return [
    defineRoute({
      method: "post",
      path: "/v1/crash-reports",
      summary: "Report a crash of the web UI",
      description:
        `message and url 1 to 2000 characters, stack and component_stack at most ${CRASH_STACK_MAX}. Stored with ` +
        `the request id and the caller for the super_admins (GET /v1/admin/crash-reports), never written to a log. ` +
        `${rule.limit} per ${rule.windowSeconds} s per caller (CRASH_REPORT_RATE_LIMIT).`,
      tags: ["crash reports"],
      operationId: "reportCrash",
      auth: ctx.auth.route("caller"),
      middleware: [limit],
      request: {
        body: z.object({
          message: z.string().min(1).max(2000),
          url: z.string().min(1).max(2000),
          stack: z.string().max(CRASH_STACK_MAX).nullable().optional(),
          component_stack: z.string().max(CRASH_STACK_MAX).nullable().optional(),
        }),
      },
      responses: {
        202: { description: "Recorded", schema: z.object({ id: z.uuid() }).meta({ id: "CrashReportRecorded" }) },
        429: problemResponse("Too many reports from this caller"),
      },
      handler: async ({ body, call }) => {
        const { id } = await reports.recordCrashReport(
          { message: body.message, url: body.url, stack: body.stack ?? "", componentStack: body.component_stack ?? "" },
          call,
        );
        return { status: 202, body: { id } };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/admin/crash-reports",
      summary: "List the web UI's crash reports, newest first",
      description: "Every report with who sent it and the request id.",
      tags: ["admin: status"],
      operationId: "adminListCrashReports",
      auth: ctx.auth.route("super_admin"),
      request: { query: pageSizePagination.query(NUMBERED_PAGE_SIZE) },
      responses: {
        200: { description: "A page of reports", schema: pageSizePagination.envelope(crashReportSchema) },
        404: problemResponse("The caller is not a super_admin (the admin surface is not shown)"),
      },
      handler: async ({ query, call }) => {
        const list = await reports.listCrashReports({ page: pageSizePagination.request(query) }, call);
        return {
          status: 200,
          body: pageSizePagination.page(list.items.map(crashReportJson), list.page?.total ?? 0, query),
        };
      },
    }),
  ];
}
