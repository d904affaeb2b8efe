// IngestInventory: the scanner-runner hands over a scan's inventory artefact; projects writes it as the scan's
// snapshot, once (docs/inventory.md). The artefact is read record by record and checked against its reference
// (size and SHA-256) before a row is written; the rows go in with COPY in one transaction.
import { createHash } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import type { ArtefactStore } from "@sca/artefacts";
import { ProblemError, type FieldViolation } from "@sca/problem";
import type { ScanArtefact } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { IngestInventoryResponseSchema, type IngestInventoryRequest } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { stageClock } from "@sca/log";
import { requireService } from "@sca/rpc";
import { InventoryArtefactError, readInventoryArtefact, type ComponentRow } from "../domain/inventory-artefact.ts";
import { isUuid } from "../domain/project-fields.ts";
import { inventoryIngestedInsert } from "../events/project-events.ts";
import { writeInventory } from "../store/inventory/ingestion.ts";
import { keepSigningCopy } from "../store/inventory/signing-copy.ts";
import { ingestedSnapshot } from "../store/inventory/snapshots.ts";
import { projectById } from "../store/projects.ts";
import type { InventoryHandlers, InventoryServiceDeps } from "./inventory-deps.ts";

/** The only caller of IngestInventory. */
export const INGEST_CALLER = "scanner-runner";
const RELEASE_MAX = 255;

/** The artefact is not the one the reference names (missing, another size, another checksum). */
class ArtefactMismatch extends Error {}

const mismatch = (detail: string) => new ProblemError({ status: 412, code: "inventory_artefact_mismatch", detail });

/** The artefact's bytes as they stream, failing at the end when their size or SHA-256 differ from the reference. */
async function* checkedBytes(store: ArtefactStore, ref: ScanArtefact): AsyncGenerator<Uint8Array> {
  const stream = await store.get(ref.key);
  if (!stream) throw new ArtefactMismatch(`The inventory artefact ${ref.key} does not exist.`);
  const hash = createHash("sha256");
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > Number(ref.sizeBytes))
        throw new ArtefactMismatch(`The inventory artefact is larger than the ${ref.sizeBytes} bytes announced.`);
      hash.update(chunk);
      yield chunk;
    }
  } finally {
    stream.destroy();
  }
  if (size !== Number(ref.sizeBytes))
    throw new ArtefactMismatch(`The inventory artefact has ${size} bytes, not the ${ref.sizeBytes} announced.`);
  if (ref.sha256 && hash.digest("hex") !== ref.sha256.toLowerCase())
    throw new ArtefactMismatch("The inventory artefact's SHA-256 is not the one announced.");
}

function validated(req: IngestInventoryRequest): FieldViolation[] {
  const v: FieldViolation[] = [];
  if (!isUuid(req.scanId)) v.push({ path: "scan_id", message: "must be a UUID" });
  if (!isUuid(req.projectId)) v.push({ path: "project_id", message: "must be a UUID" });
  if (req.attempt < 1) v.push({ path: "attempt", message: "must be at least 1" });
  if (!req.inventory?.key) v.push({ path: "inventory.key", message: "must name the artefact" });
  return v;
}

/** The snapshot's release label: the scan's, else the document's; trimmed, empty is none. */
function releaseOf(scanRelease: string | undefined, documentRelease: string | undefined): string | null {
  const label = (scanRelease?.trim() || documentRelease?.trim()) ?? "";
  return label ? [...label].slice(0, RELEASE_MAX).join("") : null;
}

export function inventoryIngestHandlers(deps: InventoryServiceDeps): InventoryHandlers<"ingestInventory"> {
  return {
    async ingestInventory(req: IngestInventoryRequest, ctx: HandlerContext) {
      requireService(ctx, INGEST_CALLER);
      const violations = validated(req);
      if (violations.length) throw ProblemError.validation(violations);
      const scanId = req.scanId.toLowerCase();
      const projectId = req.projectId.toLowerCase();
      const answer = (counts: { componentCount: number; edgeCount: number }, alreadyIngested: boolean) =>
        create(IngestInventoryResponseSchema, { ...counts, alreadyIngested });

      // A repeat needs neither the artefact nor the lock; writeInventory checks again under the lock.
      const done = await ingestedSnapshot(deps.orm.em.fork(), scanId);
      if (done) return answer(done, true);
      const written = await deps.memory.during(
        () => ingest(deps, req, scanId, projectId),
        (w) => w.counts.componentCount,
      );
      return answer(written.counts, written.alreadyIngested);
    },
  };
}

/** Reads the artefact and writes the snapshot (or finds it written by an earlier attempt). */
async function ingest(
  deps: InventoryServiceDeps,
  req: IngestInventoryRequest,
  scanId: string,
  projectId: string,
): Promise<{ counts: { componentCount: number; edgeCount: number }; alreadyIngested: boolean }> {
  // Where the call's time goes, logged at INFO (docs/inventory.md).
  const { stageMs, lap } = stageClock(["read", "categorise", "write", "signing"]);
  let contents;
  try {
    contents = await readInventoryArtefact(checkedBytes(deps.artefacts, req.inventory!), {
      rawDataMaxBytes: deps.rawDataMaxBytes,
    });
  } catch (err) {
    if (err instanceof ArtefactMismatch) throw mismatch(err.message);
    if (err instanceof InventoryArtefactError)
      throw new ProblemError({ status: 400, code: "inventory_artefact_malformed", detail: err.message });
    throw err;
  }
  lap("read");
  await categoriseAtIngestion(deps, projectId, contents.components);
  lap("categorise");
  const outcome = await writeInventory(
    deps.orm,
    {
      scanId,
      projectId,
      attempt: req.attempt,
      ref: req.ref,
      release: releaseOf(req.release, contents.document.release),
      packageJsonKey: req.packageJson?.key || null,
    },
    contents,
    inventoryIngestedInsert(projectId, scanId, new Date()),
  );
  if (outcome.kind === "no_project") throw ProblemError.notFound("No such project.");
  lap("write");
  if (outcome.kind === "ingested" && deps.signingCopy)
    await keepSigningCopy(deps.signingCopy, deps.orm.em.fork(), scanId, projectId, contents);
  lap("signing");
  deps.logger.info({ scanId, ...outcome.counts, outcome: outcome.kind, stageMs }, "inventory ingested");
  return { counts: outcome.counts, alreadyIngested: outcome.kind === "already_ingested" };
}

/** How long an ingestion waits for policy's license categories at most. */
const CATEGORISE_WAIT_MS = 5000;

/**
 * The components' license_category under the policy in force, asked before the snapshot is written so that its rows
 * are written once, with it. Otherwise the license-policy consumer updates every row of the new snapshot right after,
 * holding the inventory lock the scan's findings then wait for (2 s at 50,000 components: docs/benchmarks.md,
 * `findings-at-scale`). Ingestion still never waits on policy for long: unanswered within CATEGORISE_WAIT_MS, the rows
 * are written uncategorised and that consumer categorises them, as it checks every new snapshot anyway (a policy
 * change may land between the question and the commit).
 */
async function categoriseAtIngestion(
  deps: InventoryServiceDeps,
  projectId: string,
  components: ComponentRow[],
): Promise<void> {
  const project = await projectById(deps.orm.em.fork(), projectId);
  if (!project || components.length === 0) return;
  try {
    const categories = await deps.licenseCategories.categorise(
      project,
      components,
      AbortSignal.timeout(CATEGORISE_WAIT_MS),
    );
    components.forEach((c, i) => (c.licenseCategory = categories[i] ?? null));
  } catch (err) {
    deps.logger.warn(
      { projectId, error: (err as Error).message },
      "license categories not had at ingestion; the license-policy consumer categorises the snapshot",
    );
  }
}
