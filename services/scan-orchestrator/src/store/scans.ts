// Scan rows: the one module that reads or writes `scans` (docs/adr/0005).
import { LockMode, type EntityManager, type FilterQuery } from "@mikro-orm/postgresql";
import { containsPattern, rawQuery, SNAPSHOT } from "@sca/db";
import { medianSeconds } from "../domain/admission.ts";
import type { ReleaseListFilter } from "../domain/release.ts";
import type { RetentionCandidate } from "../domain/retention.ts";
import { isTerminal, SCAN_STATUSES, type ScanRun, type ScanStatus } from "../domain/scan-state.ts";
import { Scan, type ScanRow } from "./entities/scan.ts";

export type { ScanRow } from "./entities/scan.ts";

/** What the state machine and the database fill in for a new scan (a fixture or an import may set them). */
type Defaulted =
  | "createdAt"
  | "status"
  | "attempt"
  | "currentStep"
  | "progressPercent"
  | "errorMessage"
  | "startedAt"
  | "completedAt"
  | "supersededAt"
  | "leaseExpiresAt"
  | "pendingLicenseCount"
  | "pendingLicensePurls";

export type NewScan = Omit<ScanRow, Defaulted | "updatedAt"> & Partial<Pick<ScanRow, Defaulted>>;

export async function insertScan(em: EntityManager, scan: NewScan): Promise<ScanRow> {
  await em.insert(Scan, { status: "queued", attempt: 1, currentStep: "", progressPercent: 0, ...scan });
  return (await scanById(em, scan.id))!;
}

export async function scanById(em: EntityManager, id: string): Promise<ScanRow | null> {
  return em.findOne(Scan, { id }, SNAPSHOT);
}

/** The scan, locked for the rest of the transaction `em` runs. */
export async function lockScan(em: EntityManager, id: string): Promise<ScanRow | null> {
  return em.findOne(Scan, { id }, { ...SNAPSHOT, lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** Writes what the state machine moved; answers the row as it now is. */
export async function updateScanRun(em: EntityManager, id: string, run: ScanRun, at: Date): Promise<ScanRow> {
  const { status, attempt, currentStep, progressPercent, errorMessage, startedAt, completedAt, leaseExpiresAt } = run;
  await em.nativeUpdate(
    Scan,
    { id },
    {
      status,
      attempt,
      currentStep,
      progressPercent,
      errorMessage,
      startedAt,
      completedAt,
      leaseExpiresAt,
      updatedAt: at,
    },
  );
  return (await scanById(em, id))!;
}

export interface ScanFilter {
  /** null: every team's scans. */
  teamIds: string[] | null;
  projectId: string | null;
  status: ScanStatus | null;
  kind: string | null;
  /** Text found (literally, case-insensitively) within the project's name or slug. */
  projectText: string | null;
}

/** A page of scans, newest first, and how many match. */
export async function listScans(
  em: EntityManager,
  f: ScanFilter,
  limit: number,
  offset: number,
): Promise<{ rows: ScanRow[]; total: number }> {
  const where: FilterQuery<ScanRow> = {};
  if (f.teamIds !== null) where.teamId = { $in: f.teamIds };
  if (f.projectId !== null) where.projectId = f.projectId;
  if (f.status !== null) where.status = f.status;
  if (f.kind !== null) where.kind = f.kind as ScanRow["kind"];
  if (f.projectText !== null) {
    const pattern = containsPattern(f.projectText);
    where.$or = [{ projectName: { $ilike: pattern } }, { projectSlug: { $ilike: pattern } }];
  }
  const [rows, total] = await em.findAndCount(Scan, where, {
    ...SNAPSHOT,
    orderBy: { createdAt: "desc", id: "desc" },
    limit,
    offset,
  });
  return { rows, total };
}

/**
 * A page of a project's releases (succeeded scans carrying a label, superseded ones included), newest first, and how
 * many match. Served by `scans_project_release` (a label), `scans_project_ref_succeeded` (a ref) or
 * `scans_project_created` (neither).
 */
export async function listReleases(
  em: EntityManager,
  projectId: string,
  f: ReleaseListFilter,
  limit: number,
  offset: number,
): Promise<{ rows: ScanRow[]; total: number }> {
  const where: FilterQuery<ScanRow> = {
    projectId,
    status: "succeeded",
    release: f.release === null ? { $ne: null } : f.release,
  };
  if (f.normalizedRef !== null) where.normalizedRef = f.normalizedRef;
  const [rows, total] = await em.findAndCount(Scan, where, {
    ...SNAPSHOT,
    orderBy: { createdAt: "desc", id: "desc" },
    limit,
    offset,
  });
  return { rows, total };
}

const TERMINAL = SCAN_STATUSES.filter(isTerminal);

/**
 * Projects (after `afterProjectId`, in id order) holding a finished, unlabelled scan the retention rules could
 * delete: superseded before `supersededBefore` or created before `createdBefore`.
 */
export async function retentionCandidateProjects(
  em: EntityManager,
  horizon: { supersededBefore: Date; createdBefore: Date | null },
  afterProjectId: string | null,
  limit: number,
): Promise<string[]> {
  const superseded = { supersededAt: { $lte: horizon.supersededBefore } };
  const due = horizon.createdBefore ? [superseded, { createdAt: { $lte: horizon.createdBefore } }] : [superseded];
  const rows = await em
    .createQueryBuilder(Scan)
    .select("projectId", true)
    .where({
      status: { $in: TERMINAL },
      release: null,
      $or: due,
      ...(afterProjectId ? { projectId: { $gt: afterProjectId } } : {}),
    })
    .orderBy({ projectId: "asc" })
    .limit(limit)
    .execute<{ projectId: string }[]>("all");
  return rows.map((r) => r.projectId);
}

/**
 * Every scan of a project, as the retention rules read them, locked for the transaction `em` runs: a replica
 * sweeping the same project at once waits, then reads what is left.
 */
export async function lockRetentionCandidates(em: EntityManager, projectId: string): Promise<RetentionCandidate[]> {
  return em.find(
    Scan,
    { projectId },
    {
      ...SNAPSHOT,
      fields: ["id", "status", "normalizedRef", "release", "createdAt", "supersededAt"],
      lockMode: LockMode.PESSIMISTIC_WRITE,
    },
  );
}

export async function deleteScans(em: EntityManager, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  return em.nativeDelete(Scan, { id: { $in: [...ids] } });
}

/** Serialises the admissions of one team (the cap's count and the insert) until the transaction `em` runs ends. */
export async function lockTeamAdmission(em: EntityManager, teamId: string): Promise<void> {
  await rawQuery(em, "select pg_advisory_xact_lock(hashtextextended(?, 0))", [`scan-admission:${teamId}`]);
}

/** How many of the team's recent succeeded scans give its typical duration. */
const TYPICAL_DURATION_SAMPLE = 50;

/** What the team cap reads (domain/admission.ts TeamLoad, without the cap). */
export async function teamLoad(
  em: EntityManager,
  teamId: string,
  now: Date,
): Promise<{ runningElapsedSeconds: number[]; queued: number; typicalDurationSeconds: number | null }> {
  const active = await em.find(
    Scan,
    { teamId, status: { $in: ["queued", "running"] } },
    { ...SNAPSHOT, fields: ["status", "startedAt"] },
  );
  const recent = await em.find(
    Scan,
    { teamId, status: "succeeded", completedAt: { $ne: null } },
    {
      ...SNAPSHOT,
      fields: ["startedAt", "completedAt", "createdAt"],
      orderBy: { completedAt: "desc" },
      limit: TYPICAL_DURATION_SAMPLE,
    },
  );
  const seconds = (from: Date, to: Date) => Math.max(0, (to.getTime() - from.getTime()) / 1000);
  return {
    runningElapsedSeconds: active.filter((s) => s.status === "running").map((s) => seconds(s.startedAt ?? now, now)),
    queued: active.filter((s) => s.status === "queued").length,
    typicalDurationSeconds: medianSeconds(recent.map((s) => seconds(s.startedAt ?? s.createdAt, s.completedAt!))),
  };
}

/** The queued or running scan of the project, kind and normalised ref (the batch's already_exists), if any. */
export async function activeScanOf(
  em: EntityManager,
  projectId: string,
  kind: ScanRow["kind"],
  normalizedRef: string,
): Promise<string | null> {
  const row = await em.findOne(
    Scan,
    { projectId, kind, normalizedRef, status: { $in: ["queued", "running"] } },
    { ...SNAPSHOT, fields: ["id"], orderBy: { createdAt: "asc", id: "asc" } },
  );
  return row?.id ?? null;
}

/** The succeeded scans of the project and normalised ref (the supersede rule's peers), locked. */
export async function lockSupersedePeers(
  em: EntityManager,
  projectId: string,
  normalizedRef: string,
): Promise<{ id: string; createdAt: Date; supersededAt: Date | null }[]> {
  return em.find(
    Scan,
    { projectId, normalizedRef, status: "succeeded" },
    { ...SNAPSHOT, fields: ["id", "createdAt", "supersededAt"], lockMode: LockMode.PESSIMISTIC_WRITE },
  );
}

export async function markSuperseded(em: EntityManager, ids: readonly string[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await em.nativeUpdate(Scan, { id: { $in: [...ids] }, supersededAt: null }, { supersededAt: at, updatedAt: at });
}

export async function setRelease(em: EntityManager, id: string, release: string | null, at: Date): Promise<void> {
  await em.nativeUpdate(Scan, { id }, { release, updatedAt: at });
}

/** The registry licenses still being asked when the scan succeeded (docs/license-fetch.md, "After the outcome"). */
export async function setPendingLicenses(
  em: EntityManager,
  id: string,
  pending: { count: number; purls: string[] },
): Promise<void> {
  await em.nativeUpdate(Scan, { id }, { pendingLicenseCount: pending.count, pendingLicensePurls: pending.purls });
}

/** Running scans whose lease expired at `now`, oldest lease first (index scans_lease). */
export async function expiredLeaseScanIds(em: EntityManager, now: Date, limit: number): Promise<string[]> {
  const rows = await em.find(
    Scan,
    { status: "running", leaseExpiresAt: { $lte: now } },
    { ...SNAPSHOT, fields: ["id"], orderBy: { leaseExpiresAt: "asc" }, limit },
  );
  return rows.map((r) => r.id);
}
