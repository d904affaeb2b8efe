// The crash_reports table: the one module that reads or writes it.
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { CrashReport, type CrashReportRow } from "./entities/crash-report.ts";

export type { CrashReportRow } from "./entities/crash-report.ts";

export async function recordCrashReport(em: EntityManager, row: CrashReportRow): Promise<void> {
  await em.insert(CrashReport, row);
}

/** A page of the reports, newest first, and how many there are. */
export async function listCrashReports(
  em: EntityManager,
  limit: number,
  offset: number,
): Promise<{ rows: CrashReportRow[]; total: number }> {
  const [rows, total] = await em.findAndCount(
    CrashReport,
    {},
    { ...SNAPSHOT, orderBy: { receivedAt: "desc", id: "desc" }, limit, offset },
  );
  return { rows, total };
}
