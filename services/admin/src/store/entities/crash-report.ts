import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/** A crash report of the web UI as it arrived (docs/operations.md): its text kept here, never in a log. */
export const CrashReport = defineEntity({
  name: "CrashReport",
  tableName: "crash_reports",
  properties: {
    id: p.uuid().primary(),
    receivedAt: p.datetime(),
    requestId: p.text(),
    userId: p.text(),
    userEmail: p.text(),
    clientIp: p.text(),
    userAgent: p.text(),
    message: p.text(),
    url: p.text(),
    stack: p.text(),
    componentStack: p.text(),
  },
  indexes: [{ name: "crash_reports_received_at", properties: ["receivedAt"] }],
});

export type CrashReportRow = InferEntity<typeof CrashReport>;
