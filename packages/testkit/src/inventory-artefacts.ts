// An inventory artefact handed over as the scanner-runner does: stored in the artefact directory, then ingested by
// projects' IngestInventory as a new scan of the project. For tests and benches that need a snapshot without a scan.
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { create } from "@bufbuild/protobuf";
import type { CallOptions, Client } from "@connectrpc/connect";
import { ScanArtefactSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import type { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { callAs } from "./callers.ts";

/**
 * An artefact store's put, as @sca/artefacts's stores have it (described here, not imported: @sca/artefacts's own
 * tests use this kit).
 */
export interface ArtefactPut {
  put(
    key: string,
    body: AsyncIterable<Uint8Array>,
    options: { maxBytes: number },
  ): Promise<{ key: string; sizeBytes: number; sha256: string }>;
}

export interface IngestArtefactOptions {
  /** The scan's metadata.release. */
  release?: string;
  /** Default: a new one. */
  scanId?: string;
  /** The scan's ref; default none (""). */
  ref?: string;
  /** Default: the scanner-runner signed with TEST_SECRET; a bench against a running portal signs its own. */
  caller?: CallOptions;
}

/** Ingests `bytes` (an inventory artefact) as a scan of the project; answers the scan id. */
export async function ingestArtefact(
  inventory: Client<typeof InventoryService>,
  store: ArtefactPut,
  projectId: string,
  bytes: Uint8Array,
  opts: IngestArtefactOptions = {},
): Promise<string> {
  const stored = await store.put(`inventory/${randomUUID()}.pb`, Readable.from([bytes]), {
    maxBytes: bytes.byteLength,
  });
  const scanId = opts.scanId ?? randomUUID();
  await inventory.ingestInventory(
    {
      scanId,
      projectId,
      attempt: 1,
      ref: opts.ref ?? "",
      ...(opts.release === undefined ? {} : { release: opts.release }),
      inventory: create(ScanArtefactSchema, {
        key: stored.key,
        sizeBytes: BigInt(stored.sizeBytes),
        sha256: stored.sha256,
      }),
    },
    opts.caller ?? (await callAs.service("scanner-runner")),
  );
  return scanId;
}
