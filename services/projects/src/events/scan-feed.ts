// Projects' consumer of the scan-orchestrator's news on sca.domain.events (group projects.scan-feed, each event
// applied once by the idempotent consumer): ScanStateChanged keeps known_scans and the project's scan-fed fields;
// ScansDeleted drops the deleted scans' snapshots and recounts (docs/projects.md, "Scan-fed fields").
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import type { Logger } from "@sca/log";
import type { GateResults } from "../clients/gate-results.ts";
import {
  ScansDeletedSchema,
  ScanStateChangedSchema,
  type ScansDeleted,
  type ScanStateChanged,
} from "@sca/proto/sca/events/v1/scans_pb.ts";
import { isUuid } from "../domain/project-fields.ts";
import { isScanStatus, stateNewsApplies } from "../domain/scan-feed.ts";
import { deleteSnapshots, lockProjectInventory } from "../store/inventory/ingestion.ts";
import { labelSnapshot } from "../store/inventory/snapshots.ts";
import { deleteFileLicenses } from "../store/file-licenses.ts";
import { knownScanState, markScansDeleted, recordHeardScan, refreshScanFigures } from "../store/known-scans.ts";
import { gateFiguresToJudge, recordProjectDays, refreshProjectFigures } from "../store/portfolio/figures.ts";
import { lockProject, recountInventorySummary } from "../store/projects.ts";
import { isoDate } from "../domain/dashboards.ts";

export const SCAN_FEED_GROUP = "projects.scan-feed";

export const scanNews = topicContract(TOPICS.domainEvents, ScanStateChangedSchema, ScansDeletedSchema);

const dateOf = (t: Timestamp | undefined, otherwise: Date) => (t ? timestampDate(t) : otherwise);

export function scanFeedHandler(logger: Logger, gate: Pick<GateResults, "judgeFigures">) {
  return async (
    em: EntityManager,
    event: ScanStateChanged | ScansDeleted,
    meta: EventMeta,
    signal: AbortSignal,
  ): Promise<void> => {
    if (event.$typeName === "sca.events.v1.ScanStateChanged") await applyStateChange(em, event, meta, logger, gate);
    else await applyScansDeleted(em, event, meta, signal, logger);
  };
}

async function applyStateChange(
  em: EntityManager,
  e: ScanStateChanged,
  meta: EventMeta,
  logger: Logger,
  gate: Pick<GateResults, "judgeFigures">,
): Promise<void> {
  if (!isUuid(e.scanId) || !isUuid(e.projectId) || !isScanStatus(e.status) || !e.createdAt) {
    logger.warn({ eventId: meta.eventId, scanId: e.scanId, status: e.status }, "unusable scan state news; skipped");
    return;
  }
  const scanId = e.scanId.toLowerCase();
  const projectId = e.projectId.toLowerCase();
  // The project's row lock serialises the figures of its scans' events (replicas apply them at once otherwise).
  await lockProject(em, projectId);
  const occurredAt = dateOf(e.occurredAt, meta.timestamp);
  if (!stateNewsApplies(await knownScanState(em, scanId), { status: e.status, occurredAt })) {
    logger.debug({ scanId, status: e.status }, "scan state news older than what projects holds; skipped");
    return;
  }
  // The orchestrator bounds labels well below the columns' 255; cut anyway, so no label can stall the partition.
  const release = [...(e.release?.trim() ?? "")].slice(0, 255).join("") || null;
  await recordHeardScan(em, {
    scanId,
    projectId,
    status: e.status,
    release,
    scanCreatedAt: timestampDate(e.createdAt),
    completedAt: e.completedAt ? timestampDate(e.completedAt) : null,
    occurredAt,
  });
  // The snapshot (ingested before the success was reported) takes the scan's label, so the release anchors of the
  // inventory reads name the scans the releases list shows.
  if (e.status === "succeeded") await labelSnapshot(em, projectId, scanId, release);
  await refreshScanFigures(em, projectId);
  // A success counts the dashboards' figures again and writes the project's row of the day (docs/dashboards.md).
  if (e.status === "succeeded") {
    await refreshProjectFigures(em, [projectId]);
    await recordJudgedDay(em, projectId, isoDate(new Date()), logger, gate);
  }
}

/**
 * The project's gate outcome judged by policy again, kept with its figures, and its row of the day unless it has one.
 * Policy unreachable: no row here (the news is not held up), the daily job writes it on its next run.
 */
async function recordJudgedDay(
  em: EntityManager,
  projectId: string,
  day: string,
  logger: Logger,
  gate: Pick<GateResults, "judgeFigures">,
): Promise<void> {
  const figures = await gateFiguresToJudge(em, { projectId });
  if (figures.length === 0) return;
  const judged = await gate.judgeFigures(figures).catch((err: unknown) => {
    logger.warn({ err, projectId }, "policy did not judge the gate outcome; the daily job writes the day's row");
    return null;
  });
  if (judged) await recordProjectDays(em, day, judged);
}

async function applyScansDeleted(
  em: EntityManager,
  e: ScansDeleted,
  meta: EventMeta,
  signal: AbortSignal,
  logger: Logger,
): Promise<void> {
  if (!isUuid(e.projectId)) {
    logger.warn({ eventId: meta.eventId, projectId: e.projectId }, "unusable scans-deleted news; skipped");
    return;
  }
  const projectId = e.projectId.toLowerCase();
  const scanIds = [...new Set(e.scanIds.filter(isUuid).map((id) => id.toLowerCase()))];
  // Ingestion's lock first, then the row (the order ingestion takes them): no snapshot lands meanwhile.
  await lockProjectInventory(em, projectId);
  await lockProject(em, projectId);
  await markScansDeleted(em, projectId, scanIds, dateOf(e.occurredAt, meta.timestamp));
  const snapshots = await deleteSnapshots(em, projectId, scanIds, signal);
  await deleteFileLicenses(em, projectId, scanIds);
  await refreshScanFigures(em, projectId);
  if (snapshots > 0) {
    await recountInventorySummary(em, projectId);
    await refreshProjectFigures(em, [projectId]);
  }
  logger.info({ projectId, scans: scanIds.length, snapshots }, "deleted scans' inventory dropped");
}
