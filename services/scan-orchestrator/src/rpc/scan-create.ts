// Creating scans (CreateScan, BatchCreateScans). A project's scans and releases are listed in
// project-scan-lists.ts, uploads registered in scan-uploads.ts. A queued scan's job is written to the outbox with the
// row (docs/scans.md, "States", "Lanes").
import { create } from "@bufbuild/protobuf";
import type { EntityManager } from "@mikro-orm/postgresql";
import { summarizeBatch } from "@sca/batch";
import { uuidv7 } from "@sca/kafka";
import {
  BatchCreateScansResponseSchema,
  BatchScanRowSchema,
  CreateScanResponseSchema,
  CreateWebhookScanResponseSchema,
} from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import { ProblemError } from "@sca/problem";
import { requireCaller, requireService, type Caller } from "@sca/rpc";
import { admitToTeam, diskPressureProblem, diskVerdict, teamCapProblem, type Admission } from "../domain/admission.ts";
import {
  batchRequestProblem,
  batchRowOutcome,
  isUuid,
  type BatchRowFacts,
  type BatchRowOutcome,
} from "../domain/batch.ts";
import { normalizeScanRef } from "../domain/refs.ts";
import { metadataProblem, releaseFromMetadata } from "../domain/release.ts";
import { mayCreateScan } from "../domain/scan-access.ts";
import { isScanKind, isScanTrigger, SCAN_KINDS, SCAN_TRIGGERS, type ScanKind } from "../domain/scan-state.ts";
import {
  emitScanJob,
  emitScanStateChanged,
  scanJobRow,
  scanStateChangedRow,
  type JobArtefacts,
} from "../events/scan-events.ts";
import * as scans from "../store/scans.ts";
import * as uploads from "../store/uploads.ts";
import { deliveryOf, recordDelivery } from "../store/webhook-deliveries.ts";
import { invalid } from "./fields.ts";
import { projectAccess, projectPathId } from "./project-access.ts";
import type { ScanHandlers, ScanServiceDeps } from "./scan-deps.ts";
import { scanView } from "./scan-views.ts";

/** The error_message of a `sbom` scan created without an upload (it fails at once, never stays queued). */
export const NO_SBOM_MESSAGE = "No SBOM was uploaded for this scan: upload one first and name its upload_id.";

type UploadKind = uploads.ScanUploadRow["kind"];
const UPLOAD_NAMES: Record<UploadKind, string> = {
  sbom: "SBOM upload",
  source_archive: "source archive",
  image_archive: "image archive",
};

/** Only the edge receives repository webhooks; it checked the project's signature or token before asking. */
export const WEBHOOK_INTAKE_CALLER = "gateway";

export function scanCreateHandlers(
  deps: ScanServiceDeps,
): ScanHandlers<"createScan" | "batchCreateScans" | "createWebhookScan"> {
  const { settings } = deps;
  const projects = projectAccess(deps);

  async function refuseOnDiskPressure(): Promise<void> {
    const usage = await deps.artefacts.usage().catch(() => ({ totalBytes: 0, freeBytes: 0 }));
    const verdict = diskVerdict(usage, settings.disk);
    if (verdict.refuse) throw diskPressureProblem(verdict.detail);
  }

  async function admission(em: EntityManager, teamId: string, now: Date): Promise<Admission> {
    await scans.lockTeamAdmission(em, teamId);
    return admitToTeam({ cap: settings.maxConcurrentPerTeam, ...(await scans.teamLoad(em, teamId, now)) });
  }

  /** The admission of a scan inserted by queueSourceScan with `thenLockTeam` (the lock is held): the others count. */
  async function admissionOfInserted(em: EntityManager, scan: scans.ScanRow, now: Date): Promise<Admission> {
    const load = await scans.teamLoad(em, scan.teamId, now, scan.id);
    return admitToTeam({ cap: settings.maxConcurrentPerTeam, ...load });
  }

  function requester(caller: Caller) {
    return {
      requestedByUserId: caller.kind === "user" ? caller.user_id : null,
      requestedByApiKeyId: caller.kind === "api_key" ? caller.api_key_id : null,
    };
  }

  /** An upload the scan names: registered for this project, of the right kind, not expired. */
  async function namedUpload(
    em: EntityManager,
    id: string | undefined,
    kind: UploadKind,
    projectId: string,
    path: string,
    now: Date,
  ): Promise<uploads.ScanUploadRow | null> {
    if (id === undefined || id === "") return null;
    const row = isUuid(id) ? await uploads.uploadById(em, id.toLowerCase()) : null;
    if (!row || row.kind !== kind || row.projectId !== projectId || row.expiresAt <= now)
      throw invalid(path, `names no ${UPLOAD_NAMES[kind]} of this project`);
    return row;
  }

  const artefactOf = (u: uploads.ScanUploadRow | null) =>
    u ? { key: u.artefactKey, sizeBytes: u.sizeBytes, sha256: u.sha256 } : undefined;

  /** A source scan of a git ref, nothing uploaded, queued with its state change and its job (batch rows, webhooks). */
  async function queueSourceScan(
    em: EntityManager,
    scan: Pick<
      scans.NewScan,
      "id" | "projectId" | "teamId" | "projectName" | "projectSlug" | "trigger" | "metadata"
    > & {
      ref: { ref: string; normalized: string };
      requester: ReturnType<typeof requester>;
      createdAt: Date;
    },
    opts: { thenLockTeam: boolean },
  ): Promise<scans.ScanRow> {
    const { ref, requester: by, ...rest } = scan;
    const row = scans.queuedScanRow({
      ...rest,
      kind: "source",
      ref: ref.ref,
      normalizedRef: ref.normalized,
      release: null,
      ...by,
      sbomUploadId: null,
      sourceArchiveId: null,
      imageArchiveId: null,
    });
    await scans.insertQueuedScan(
      em,
      row,
      [scanStateChangedRow(row, "", scan.createdAt), scanJobRow(row, {}, scan.createdAt)],
      opts,
    );
    return row;
  }

  return {
    async createScan(req, ctx) {
      const caller = requireCaller(ctx);
      const projectId = projectPathId(req.projectId);
      const kindRaw = req.kind === "" ? "source" : req.kind;
      if (!isScanKind(kindRaw)) throw invalid("body.kind", `must be one of ${SCAN_KINDS.join(", ")}`);
      const kind: ScanKind = kindRaw;
      const trigger = req.trigger === "" ? "manual" : req.trigger;
      if (!isScanTrigger(trigger)) throw invalid("body.trigger", `must be one of ${SCAN_TRIGGERS.join(", ")}`);
      // A container scan of an uploaded image archive needs no image reference (one picks an image of the archive).
      const archivedImage = kind === "container" && !!req.imageArchiveId && req.ref.trim() === "";
      const ref = archivedImage ? { ok: true as const, ref: "", normalized: "" } : normalizeScanRef(kind, req.ref);
      if (!ref.ok) throw invalid("body.ref", ref.message);
      const metadata = (req.metadata ?? {}) as Record<string, unknown>;
      const tooBig = metadataProblem(metadata);
      if (tooBig) throw invalid(tooBig.path, tooBig.message);
      const release = releaseFromMetadata(metadata);
      if (!release.ok) throw invalid(release.path, release.message);
      if (kind !== "sbom" && req.sbomUploadId) throw invalid("body.sbom_upload_id", "is for sbom scans only");
      if (kind !== "source" && req.sourceArchiveId) throw invalid("body.source_archive_id", "is for source scans only");
      if (kind !== "container" && req.imageArchiveId)
        throw invalid("body.image_archive_id", "is for container scans only");

      const project = await projects.writable(caller, projectId);
      await refuseOnDiskPressure();
      const now = new Date();
      const row = await deps.orm.em.fork().transactional(async (em) => {
        const sbom = await namedUpload(em, req.sbomUploadId, "sbom", project.id, "body.sbom_upload_id", now);
        const archive = await namedUpload(
          em,
          req.sourceArchiveId,
          "source_archive",
          project.id,
          "body.source_archive_id",
          now,
        );
        const image = await namedUpload(
          em,
          req.imageArchiveId,
          "image_archive",
          project.id,
          "body.image_archive_id",
          now,
        );
        const failsAtOnce = kind === "sbom" && sbom === null;
        if (!failsAtOnce) {
          const admitted = await admission(em, project.teamId, now);
          if (!admitted.admit) throw teamCapProblem(settings.maxConcurrentPerTeam, admitted.retryAfterSeconds);
        }
        const scan = await scans.insertScan(em, {
          id: uuidv7(),
          projectId: project.id,
          teamId: project.teamId,
          projectName: project.name,
          projectSlug: project.slug,
          kind,
          trigger,
          ref: ref.ref,
          normalizedRef: ref.normalized,
          release: release.release,
          metadata,
          ...requester(caller),
          sbomUploadId: sbom?.id ?? null,
          sourceArchiveId: archive?.id ?? null,
          imageArchiveId: image?.id ?? null,
          createdAt: now,
          ...(failsAtOnce ? { status: "failed", errorMessage: NO_SBOM_MESSAGE, completedAt: now } : {}),
        });
        emitScanStateChanged(em, scan, "", now);
        if (!failsAtOnce) {
          const artefacts: JobArtefacts = {
            sbom: artefactOf(sbom),
            sourceArchive: artefactOf(archive),
            imageArchive: artefactOf(image),
          };
          emitScanJob(em, scan, artefacts, now);
        }
        return scan;
      });
      deps.wakeRelay();
      return create(CreateScanResponseSchema, { scan: scanView(row) });
    },

    async createWebhookScan(req, ctx) {
      requireService(ctx, WEBHOOK_INTAKE_CALLER);
      if (!isUuid(req.projectId) || !isUuid(req.teamId)) throw invalid("project_id", "must be a UUID");
      const ref = normalizeScanRef("source", req.ref);
      if (!ref.ok) throw invalid("ref", ref.message);
      if (req.deliveryId === "" || req.deliveryId.length > 128)
        throw invalid("delivery_id", "must be 1..128 characters");
      const key = { provider: req.provider, deliveryId: req.deliveryId, projectId: req.projectId.toLowerCase() };
      const metadata: Record<string, unknown> = {
        webhook_provider: req.provider,
        webhook_event: req.event,
        webhook_delivery_id: req.deliveryId,
        repository: req.repository,
        ...(req.pullRequestNumber === undefined ? {} : { pull_request_number: Number(req.pullRequestNumber) }),
        ...(req.baseRef === undefined ? {} : { base_ref: req.baseRef }),
      };
      const now = new Date();
      const outcome = await deps.orm.em.fork().transactional(async (em) => {
        const scanId = uuidv7();
        // The delivery first, before the admission rules (a redelivery answers its scan whatever the cap and the
        // disk say) and before the team's lock: a concurrent copy waits here for this one to commit or roll back,
        // holding nothing the team's other webhooks wait for.
        if (!(await recordDelivery(em, { ...key, scanId, receivedAt: now }))) {
          const delivery = await deliveryOf(em, key);
          const earlier = delivery ? await scans.scanById(em, delivery.scanId) : null;
          if (!earlier)
            throw new ProblemError({ status: 409, code: "conflict", detail: "The delivery is being handled." });
          return { scan: earlier, duplicate: true };
        }
        await refuseOnDiskPressure();
        // Inserted first, then admitted (the insert's statement takes the team's lock, the others are counted, a
        // refusal rolls it all back): the team's pushes, which come in bursts, wait on each other for the count and
        // the commit only, not also for the insert.
        const scan = await queueSourceScan(
          em,
          {
            id: scanId,
            projectId: key.projectId,
            teamId: req.teamId.toLowerCase(),
            projectName: req.projectName,
            projectSlug: req.projectSlug,
            trigger: "webhook",
            ref,
            metadata,
            requester: { requestedByUserId: null, requestedByApiKeyId: null },
            createdAt: now,
          },
          { thenLockTeam: true },
        );
        const admitted = await admissionOfInserted(em, scan, now);
        if (!admitted.admit) throw teamCapProblem(settings.maxConcurrentPerTeam, admitted.retryAfterSeconds);
        return { scan, duplicate: false };
      });
      if (!outcome.duplicate) deps.wakeRelay();
      return create(CreateWebhookScanResponseSchema, { scan: scanView(outcome.scan), duplicate: outcome.duplicate });
    },

    async batchCreateScans(req, ctx) {
      const caller = requireCaller(ctx);
      const bounds = batchRequestProblem(req.projectIds);
      if (bounds) throw invalid(bounds.path, bounds.message);
      const ref = normalizeScanRef("source", req.ref);
      if (!ref.ok) throw invalid("body.ref", ref.message);
      await refuseOnDiskPressure();
      const outcomes: BatchRowOutcome[] = [];
      let queued = false;
      for (const [index, rawId] of req.projectIds.entries()) {
        if (!isUuid(rawId)) {
          outcomes.push(batchRowOutcome(index, rawId, null));
          continue;
        }
        const projectId = rawId.toLowerCase();
        const answer = await deps.projects.project(caller, projectId);
        if (!answer.found) {
          outcomes.push(batchRowOutcome(index, rawId, { project: "not_visible" }));
          continue;
        }
        const project = answer.project;
        if (!mayCreateScan(caller, { teamId: project.teamId, projectId })) {
          outcomes.push(batchRowOutcome(index, rawId, { project: "not_allowed" }));
          continue;
        }
        if (project.archived) {
          outcomes.push(batchRowOutcome(index, rawId, { project: "archived" }));
          continue;
        }
        const now = new Date();
        const outcome = await deps.orm.em.fork().transactional(async (em) => {
          const facts: BatchRowFacts = {
            project: "open",
            admission: await admission(em, project.teamId, now),
            activeScanId: await scans.activeScanOf(em, projectId, "source", ref.normalized),
          };
          const row = batchRowOutcome(index, rawId, facts);
          if (row.status !== "created") return row;
          const scan = await queueSourceScan(
            em,
            {
              id: uuidv7(),
              projectId,
              teamId: project.teamId,
              projectName: project.name,
              projectSlug: project.slug,
              trigger: "manual",
              ref,
              metadata: {},
              requester: requester(caller),
              createdAt: now,
            },
            { thenLockTeam: false },
          );
          return { ...row, scanId: scan.id };
        });
        if (outcome.status === "created") queued = true;
        outcomes.push(outcome);
      }
      if (queued) deps.wakeRelay();
      const summary = summarizeBatch(outcomes);
      return create(BatchCreateScansResponseSchema, {
        allSucceeded: summary.allSucceeded,
        total: summary.total,
        created: summary.created,
        alreadyExisted: summary.alreadyExisted,
        failed: summary.failed,
        failedByStatus: summary.failedByStatus,
        rows: outcomes.map((o) =>
          create(BatchScanRowSchema, {
            index: o.index,
            status: o.status,
            projectId: o.projectId,
            ...(o.scanId === null ? {} : { scanId: o.scanId }),
            ...(o.detail === null ? {} : { detail: o.detail }),
            ...(o.retryAfterSeconds === null ? {} : { retryAfterSeconds: o.retryAfterSeconds }),
          }),
        ),
      });
    },
  };
}
