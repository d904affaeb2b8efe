// The events the scan-orchestrator emits, written to the outbox in the transaction of the change they report:
// scan state changes and deletions on sca.domain.events (keyed by scan id and by project id), and audit events.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { auditEmitter } from "@sca/audit";
import { enqueue, outboxRow, topicContract, TOPICS, type OutboxRow } from "@sca/kafka";
import {
  ScanArtefactSchema,
  ScanJobSchema,
  ScansDeletedSchema,
  ScanStateChangedSchema,
} from "@sca/proto/sca/events/v1/scans_pb.ts";
import { laneOf, type ScanStatus } from "../domain/scan-state.ts";
import { webhookPullRequestOf } from "../domain/webhook-pull-request.ts";
import type { ScanRow } from "../store/scans.ts";

export const scanDomainEvents = topicContract(TOPICS.domainEvents, ScanStateChangedSchema, ScansDeletedSchema);

/** The scan-orchestrator's audit events (@sca/audit); most are about a row of scans. */
export const emitAudit = auditEmitter({ source: "scan-orchestrator", defaultTargetTable: "scans" });

const ts = (d: Date | null) => (d ? timestampFromDate(d) : undefined);

export interface SupersedeNews {
  supersededScanIds: readonly string[];
  landedSuperseded: boolean;
}

/** The scan as it now is, moved from `previousStatus` ("" for a new scan). */
export function emitScanStateChanged(
  em: EntityManager,
  scan: ScanRow,
  previousStatus: ScanStatus | "",
  at: Date,
  supersede?: SupersedeNews,
): string {
  return enqueue(em, scanDomainEvents, scan.id, scanStateChanged(scan, previousStatus, at, supersede));
}

/** emitScanStateChanged's event as an outbox row, for a store writing it in the statement that queues the scan. */
export function scanStateChangedRow(scan: ScanRow, previousStatus: ScanStatus | "", at: Date): OutboxRow {
  return outboxRow(scanDomainEvents, scan.id, scanStateChanged(scan, previousStatus, at));
}

function scanStateChanged(scan: ScanRow, previousStatus: ScanStatus | "", at: Date, supersede?: SupersedeNews) {
  const pullRequest = webhookPullRequestOf(scan.trigger, scan.metadata);
  return create(ScanStateChangedSchema, {
    occurredAt: timestampFromDate(at),
    scanId: scan.id,
    projectId: scan.projectId,
    teamId: scan.teamId,
    kind: scan.kind,
    status: scan.status,
    previousStatus,
    ref: scan.ref,
    normalizedRef: scan.normalizedRef,
    ...(scan.release === null ? {} : { release: scan.release }),
    ...(scan.requestedByUserId === null ? {} : { requestedByUserId: scan.requestedByUserId }),
    ...(scan.errorMessage === null ? {} : { errorMessage: scan.errorMessage }),
    attempt: scan.attempt,
    createdAt: ts(scan.createdAt),
    startedAt: ts(scan.startedAt),
    completedAt: ts(scan.completedAt),
    supersededScanIds: [...(supersede?.supersededScanIds ?? [])],
    landedSuperseded: supersede?.landedSuperseded ?? false,
    ...(pullRequest ? { pullRequestNumber: BigInt(pullRequest.number), pullRequestBaseRef: pullRequest.baseRef } : {}),
  });
}

/** Scans of one project the retention sweep removed; projects drops their inventory snapshots. */
export function emitScansDeleted(em: EntityManager, projectId: string, scanIds: readonly string[], at: Date): string {
  return enqueue(
    em,
    scanDomainEvents,
    projectId,
    create(ScansDeletedSchema, { occurredAt: timestampFromDate(at), projectId, scanIds: [...scanIds] }),
  );
}

/** The job lanes (docs/scans.md, "Lanes"): one contract each, keyed by project id. */
export const scanJobLanes = {
  manual: topicContract(TOPICS.scanJobsManual, ScanJobSchema),
  automatic: topicContract(TOPICS.scanJobsAutomatic, ScanJobSchema),
} as const;

export interface JobArtefacts {
  sbom?: { key: string; sizeBytes: number; sha256: string } | undefined;
  sourceArchive?: { key: string; sizeBytes: number; sha256: string } | undefined;
  imageArchive?: { key: string; sizeBytes: number; sha256: string } | undefined;
}

/** The job of the scan's current attempt, to its lane, in the transaction that queued the scan. */
export function emitScanJob(em: EntityManager, scan: ScanRow, artefacts: JobArtefacts, at: Date): string {
  return enqueue(em, scanJobLanes[laneOf(scan.trigger)], scan.projectId, scanJob(scan, artefacts, at));
}

/** emitScanJob's event as an outbox row, for a store writing it in the statement that queues the scan. */
export function scanJobRow(scan: ScanRow, artefacts: JobArtefacts, at: Date): OutboxRow {
  return outboxRow(scanJobLanes[laneOf(scan.trigger)], scan.projectId, scanJob(scan, artefacts, at));
}

function scanJob(scan: ScanRow, artefacts: JobArtefacts, at: Date) {
  const lane = laneOf(scan.trigger);
  const ref = (a: JobArtefacts["sbom"]) =>
    a ? create(ScanArtefactSchema, { key: a.key, sizeBytes: BigInt(a.sizeBytes), sha256: a.sha256 }) : undefined;
  return create(ScanJobSchema, {
    occurredAt: timestampFromDate(at),
    scanId: scan.id,
    projectId: scan.projectId,
    teamId: scan.teamId,
    kind: scan.kind,
    lane,
    attempt: scan.attempt,
    ref: scan.normalizedRef,
    sbom: ref(artefacts.sbom),
    sourceArchive: ref(artefacts.sourceArchive),
    imageArchive: ref(artefacts.imageArchive),
  });
}
