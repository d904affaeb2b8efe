// How scans move after creation (docs/scans.md, "States", "Retries, dead letters and the lease"): the worker's
// reports on sca.scan.events, the retry topics putting jobs back in their lane when due, and the lease sweep. Each
// change is applied through the state rules under a row lock, in one transaction with the events it causes
// (ScanStateChanged, the next job) written to the outbox. A report about another attempt than the scan's current
// one, or about a scan that is cancelled or finished, changes nothing.
import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { deadLetterTopic, enqueue, topicContract, TOPICS } from "@sca/kafka";
import type { Logger } from "@sca/log";
import {
  ScanAttemptFinishedSchema,
  ScanJobSchema,
  ScanProgressSchema,
  type ScanAttemptFinished,
  type ScanJob,
  type ScanProgress,
} from "@sca/proto/sca/events/v1/scans_pb.ts";
import { leaseVerdict, retryPlan, type RetryPolicy, type RetryTier } from "../domain/job-retry.ts";
import { releaseOnSuccess } from "../domain/release.ts";
import { applyScanEvent, laneOf, type ScanEvent, type StateSettings } from "../domain/scan-state.ts";
import { supersedeOnSuccess } from "../domain/supersede.ts";
import * as scans from "../store/scans.ts";
import * as uploads from "../store/uploads.ts";
import { emitScanJob, emitScanStateChanged, type JobArtefacts, type SupersedeNews } from "./scan-events.ts";

// Log lines are the gateway's (WebSocket frames): left out here, the consumer passes them by without a transaction
// each, so an attempt's outcome does not wait behind a transaction per line of its log.
export const scanEventsTopic = topicContract(TOPICS.scanEvents, ScanProgressSchema, ScanAttemptFinishedSchema);

export const retryTopics: Record<RetryTier, ReturnType<typeof retryContract>> = {
  1: retryContract(TOPICS.scanJobsRetry1),
  2: retryContract(TOPICS.scanJobsRetry2),
  3: retryContract(TOPICS.scanJobsRetry3),
};

function retryContract(topic: string) {
  return topicContract(topic, ScanJobSchema);
}

/** The lanes' dead-letter topics: jobs whose attempts are used up (and the consumers' undecodable records). */
export const laneDeadLetters = {
  manual: topicContract(deadLetterTopic(TOPICS.scanJobsManual), ScanJobSchema),
  automatic: topicContract(deadLetterTopic(TOPICS.scanJobsAutomatic), ScanJobSchema),
} as const;

export interface FlowSettings extends StateSettings {
  retry: RetryPolicy;
}

/** The artefacts a scan's job names (its SBOM upload, source archive or image archive), as registered. */
async function jobArtefacts(em: EntityManager, scan: scans.ScanRow): Promise<JobArtefacts> {
  const of = async (id: string | null) => {
    const u = id ? await uploads.uploadById(em, id) : null;
    return u ? { key: u.artefactKey, sizeBytes: u.sizeBytes, sha256: u.sha256 } : undefined;
  };
  return {
    sbom: await of(scan.sbomUploadId),
    sourceArchive: await of(scan.sourceArchiveId),
    imageArchive: await of(scan.imageArchiveId),
  };
}

type Applied = { moved: false } | { moved: true; row: scans.ScanRow };

/** Applies one state event to the locked scan; writes and reports the move. */
async function move(
  em: EntityManager,
  scanId: string,
  event: ScanEvent,
  now: Date,
  settings: StateSettings,
  logger: Logger,
  after?: (em: EntityManager, before: scans.ScanRow, row: scans.ScanRow) => Promise<SupersedeNews | undefined>,
): Promise<Applied> {
  const scan = await scans.lockScan(em, scanId);
  if (!scan) {
    logger.warn({ scanId, event: event.type }, "a report about an unknown scan; ignored");
    return { moved: false };
  }
  const t = applyScanEvent(scan, event, now, settings);
  if (!t.ok) {
    logger.info({ scanId, event: event.type, reason: t.reason, detail: t.detail }, "scan report changes nothing");
    return { moved: false };
  }
  let row = await scans.updateScanRun(em, scan.id, t.next, now);
  if (!t.changed) return { moved: false };
  const news = after ? await after(em, scan, row) : undefined;
  if (news) row = (await scans.scanById(em, scan.id))!;
  emitScanStateChanged(em, row, scan.status, now, news);
  return { moved: true, row };
}

export function scanEventHandler(settings: FlowSettings, logger: Logger) {
  return async (em: EntityManager, message: ScanProgress | ScanAttemptFinished): Promise<void> => {
    const now = new Date();
    switch (message.$typeName) {
      case "sca.events.v1.ScanProgress":
        await move(
          em,
          message.scanId,
          {
            type: "progress",
            attempt: message.attempt,
            percent: message.percent,
            step: message.step,
            heartbeat: message.heartbeat,
          },
          now,
          settings,
          logger,
        );
        return;
      case "sca.events.v1.ScanAttemptFinished":
        await attemptFinished(em, message, now, settings, logger);
        return;
    }
  };
}

async function attemptFinished(
  em: EntityManager,
  m: ScanAttemptFinished,
  now: Date,
  settings: FlowSettings,
  logger: Logger,
): Promise<void> {
  if (m.outcome === "succeeded") {
    await move(em, m.scanId, { type: "succeed", attempt: m.attempt }, now, settings, logger, async (tx, _, row) => {
      const release = releaseOnSuccess(row.release, m.documentRelease);
      if (release !== row.release) await scans.setRelease(tx, row.id, release, now);
      if (m.pendingLicenseCount > 0)
        await scans.setPendingLicenses(tx, row.id, { count: m.pendingLicenseCount, purls: m.pendingLicensePurls });
      const peers = await scans.lockSupersedePeers(tx, row.projectId, row.normalizedRef);
      const outcome = supersedeOnSuccess(row, peers);
      await scans.markSuperseded(tx, [...outcome.supersede, ...(outcome.landedSuperseded ? [row.id] : [])], now);
      return { supersededScanIds: outcome.supersede, landedSuperseded: outcome.landedSuperseded };
    });
    return;
  }
  const cause = m.errorMessage.trim() || "The scan failed";
  if (!m.retryable) {
    await move(em, m.scanId, { type: "fail", attempt: m.attempt, message: cause }, now, settings, logger);
    return;
  }
  const plan = retryPlan(m.attempt, settings.retry, now, cause);
  if (plan.kind === "exhausted") {
    const failed = await move(
      em,
      m.scanId,
      { type: "fail", attempt: m.attempt, message: plan.message },
      now,
      settings,
      logger,
    );
    if (failed.moved) {
      const job = await jobOf(em, failed.row, now);
      enqueue(em, laneDeadLetters[job.lane as "manual" | "automatic"], failed.row.projectId, job);
    }
    return;
  }
  // Back to queued as the next attempt; the job waits out its back-off in the tier's retry topic.
  const queued = await move(em, m.scanId, { type: "requeue", attempt: plan.attempt }, now, settings, logger);
  if (queued.moved) {
    const job = await jobOf(em, queued.row, now);
    enqueue(em, retryTopics[plan.tier], queued.row.projectId, { ...job, notBefore: timestampFromDate(plan.notBefore) });
  }
}

async function jobOf(em: EntityManager, scan: scans.ScanRow, now: Date): Promise<ScanJob> {
  const a = await jobArtefacts(em, scan);
  const ref = (x: JobArtefacts["sbom"]) =>
    x ? { key: x.key, sizeBytes: BigInt(x.sizeBytes), sha256: x.sha256 } : undefined;
  return create(ScanJobSchema, {
    occurredAt: timestampFromDate(now),
    scanId: scan.id,
    projectId: scan.projectId,
    teamId: scan.teamId,
    kind: scan.kind,
    lane: laneOf(scan.trigger),
    attempt: scan.attempt,
    ref: scan.normalizedRef,
    sbom: ref(a.sbom),
    sourceArchive: ref(a.sourceArchive),
    imageArchive: ref(a.imageArchive),
  });
}

/** A retry record's due time (the consumer waits for it). */
export const retryDue = (job: ScanJob): Date | undefined => (job.notBefore ? timestampDate(job.notBefore) : undefined);

/**
 * A retry record fell due: its job goes back to its lane, unless the scan moved on meanwhile (cancelled, or another
 * attempt) — then the record is dropped.
 */
export function retryHandler(logger: Logger) {
  return async (em: EntityManager, job: ScanJob): Promise<void> => {
    const scan = await scans.lockScan(em, job.scanId);
    if (!scan || scan.status !== "queued" || scan.attempt !== job.attempt) {
      logger.info({ scanId: job.scanId, attempt: job.attempt }, "retry of a scan that moved on; dropped");
      return;
    }
    emitScanJob(em, scan, await jobArtefacts(em, scan), new Date());
  };
}

const LEASE_SWEEP_BATCH = 100;

/**
 * Running scans whose lease expired: with attempts left, back to queued as the next attempt and their job
 * published again at once (the lease already waited); without, failed.
 */
export async function sweepLeases(
  orm: MikroORM,
  settings: FlowSettings,
  logger: Logger,
  signal: AbortSignal,
): Promise<{ republished: number; failed: number }> {
  const result = { republished: 0, failed: 0 };
  const now = new Date();
  const ids = await scans.expiredLeaseScanIds(orm.em.fork(), now, LEASE_SWEEP_BATCH);
  for (const id of ids) {
    if (signal.aborted) break;
    await orm.em.fork().transactional(async (em) => {
      const scan = await scans.lockScan(em, id);
      if (!scan) return;
      const verdict = leaseVerdict(scan, now, settings.retry.maxAttempts);
      if (verdict.kind === "alive") return;
      if (verdict.kind === "fail") {
        const failed = await move(em, id, { type: "fail", message: verdict.message }, now, settings, logger);
        if (failed.moved) result.failed++;
        return;
      }
      const queued = await move(em, id, { type: "requeue", attempt: verdict.attempt }, now, settings, logger);
      if (queued.moved) {
        emitScanJob(em, queued.row, await jobArtefacts(em, queued.row), now);
        result.republished++;
      }
    });
  }
  return result;
}
