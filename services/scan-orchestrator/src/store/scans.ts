// Scan rows: the one module that reads or writes `scans` (docs/adr/0005).
import { LockMode, type EntityManager, type FilterQuery } from "@mikro-orm/postgresql";
import { column, containsPattern, rawQuery, rawStatement, SNAPSHOT } from "@sca/db";
import type { OutboxRow } from "@sca/kafka";
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

const LOCK_TEAM_ADMISSION_SQL = "select pg_advisory_xact_lock(hashtextextended(?, 0))";
const admissionLockKey = (teamId: string) => `scan-admission:${teamId}`;

/** Serialises the admissions of one team (the cap's count and the insert) until the transaction `em` runs ends. */
export async function lockTeamAdmission(em: EntityManager, teamId: string): Promise<void> {
  await rawQuery(em, LOCK_TEAM_ADMISSION_SQL, [admissionLockKey(teamId)]);
}

/** How many of the team's recent succeeded scans give its typical duration. */
const TYPICAL_DURATION_SAMPLE = 50;

const TEAM_LOAD_SQL = `select
    (select count(*) from scans where team_id = ? and status = 'queued' and id <> ?) as queued,
    (select coalesce(json_agg(floor(extract(epoch from started_at) * 1000)), '[]'::json)
       from scans where team_id = ? and status = 'running') as running_started_ms,
    (select coalesce(json_agg(json_build_array(floor(extract(epoch from coalesce(started_at, created_at)) * 1000),
                                               floor(extract(epoch from completed_at) * 1000))), '[]'::json)
       from (select started_at, created_at, completed_at from scans
             where team_id = ? and status = 'succeeded' and completed_at is not null
             order by completed_at desc limit ?) recent) as recent_ms`;

/**
 * What the team cap reads (domain/admission.ts TeamLoad, without the cap), besides the scan `exceptScanId` (one
 * being admitted, already inserted), in one statement of counts and times rather than a row per active scan: it
 * runs under the team's admission lock (the indexes scans_team_active and scans_team_completed serve it).
 */
export async function teamLoad(
  em: EntityManager,
  teamId: string,
  now: Date,
  exceptScanId: string | null = null,
): Promise<{ runningElapsedSeconds: number[]; queued: number; typicalDurationSeconds: number | null }> {
  // A nil UUID for none: no scan has it (ids are UUIDv7).
  const except = exceptScanId ?? "00000000-0000-0000-0000-000000000000";
  const [load] = await rawQuery(em, TEAM_LOAD_SQL, [teamId, except, teamId, teamId, TYPICAL_DURATION_SAMPLE], {
    queued: column.integer,
    runningStartedMs: column.json<(number | null)[]>(),
    recentMs: column.json<[number, number][]>(),
  });
  const seconds = (fromMs: number, toMs: number) => Math.max(0, (toMs - fromMs) / 1000);
  return {
    runningElapsedSeconds: load!.runningStartedMs.map((ms) => seconds(ms ?? now.getTime(), now.getTime())),
    queued: load!.queued,
    typicalDurationSeconds: medianSeconds(load!.recentMs.map(([from, to]) => seconds(from, to))),
  };
}

const SCAN_COLUMNS: [column: string, value: (s: ScanRow) => unknown][] = [
  ["id", (s) => s.id],
  ["project_id", (s) => s.projectId],
  ["team_id", (s) => s.teamId],
  ["project_name", (s) => s.projectName],
  ["project_slug", (s) => s.projectSlug],
  ["kind", (s) => s.kind],
  ["status", (s) => s.status],
  ["trigger", (s) => s.trigger],
  ["ref", (s) => s.ref],
  ["normalized_ref", (s) => s.normalizedRef],
  ["release", (s) => s.release],
  ["metadata", (s) => JSON.stringify(s.metadata)],
  ["current_step", (s) => s.currentStep],
  ["progress_percent", (s) => s.progressPercent],
  ["attempt", (s) => s.attempt],
  ["requested_by_user_id", (s) => s.requestedByUserId],
  ["requested_by_api_key_id", (s) => s.requestedByApiKeyId],
  ["sbom_upload_id", (s) => s.sbomUploadId],
  ["source_archive_id", (s) => s.sourceArchiveId],
  ["image_archive_id", (s) => s.imageArchiveId],
  ["error_message", (s) => s.errorMessage],
  ["lease_expires_at", (s) => s.leaseExpiresAt],
  ["created_at", (s) => s.createdAt],
  ["started_at", (s) => s.startedAt],
  ["completed_at", (s) => s.completedAt],
  ["superseded_at", (s) => s.supersededAt],
  ["updated_at", (s) => s.updatedAt],
  ["pending_license_count", (s) => s.pendingLicenseCount],
  ["pending_license_purls", (s) => JSON.stringify(s.pendingLicensePurls)],
];
const JSONB_COLUMNS = new Set(["metadata", "pending_license_purls"]);
const INSERT_SCAN_SQL = `insert into scans (${SCAN_COLUMNS.map(([c]) => c).join(", ")}) values (${SCAN_COLUMNS.map(
  ([c]) => (JSONB_COLUMNS.has(c) ? "?::jsonb" : "?"),
).join(", ")})`;

/** A queued scan as insertQueuedScan writes it: every column given, so it needs no reading back. */
export function queuedScanRow(scan: Omit<NewScan, "createdAt"> & { createdAt: Date }): ScanRow {
  return {
    status: "queued",
    attempt: 1,
    currentStep: "",
    progressPercent: 0,
    errorMessage: null,
    leaseExpiresAt: null,
    startedAt: null,
    completedAt: null,
    supersededAt: null,
    pendingLicenseCount: 0,
    pendingLicensePurls: [],
    ...scan,
    updatedAt: scan.createdAt,
  };
}

/**
 * Inserts the scan and the outbox rows of its events in one statement: scans are queued under the team's
 * admission lock, and every round trip made while holding it makes the team's other admissions wait (insertScan
 * takes an insert, a read back and the unit of work's flush). With `thenLockTeam` the same statement ends by
 * taking the team's admission lock (lockTeamAdmission), for an admission that counts after inserting.
 */
export async function insertQueuedScan(
  em: EntityManager,
  scan: ScanRow,
  events: readonly OutboxRow[],
  opts: { thenLockTeam: boolean },
): Promise<void> {
  const outbox = `insert into outbox (id, topic, key, type, payload, headers) values ${events
    .map(() => "(?, ?, ?, ?, ?, ?::jsonb)")
    .join(", ")}`;
  const params = [
    ...SCAN_COLUMNS.map(([, value]) => value(scan)),
    ...events.flatMap((e) => [e.id, e.topic, e.key, e.type, e.payload, JSON.stringify(e.headers)]),
  ];
  if (opts.thenLockTeam)
    await rawQuery(em, `with scan as (${INSERT_SCAN_SQL}), events as (${outbox}) ${LOCK_TEAM_ADMISSION_SQL}`, [
      ...params,
      admissionLockKey(scan.teamId),
    ]);
  else await rawStatement(em, `with scan as (${INSERT_SCAN_SQL}) ${outbox}`, params);
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
