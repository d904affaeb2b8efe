// An inventory artefact handed over as the scanner-runner does: stored in the artefact directory, then ingested by
// projects' IngestInventory as a new scan of the project.
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import { bytesSource, type DirectoryArtefactStore } from "@sca/artefacts";
import { ScanArtefactSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import type { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { callAs } from "@sca/testkit";

/** Ingests `bytes` (an inventory artefact) as a new scan of the project; answers the scan id. */
export async function ingestArtefact(
  inventory: Client<typeof InventoryService>,
  store: DirectoryArtefactStore,
  projectId: string,
  bytes: Uint8Array,
): Promise<string> {
  const stored = await store.put(`inventory/${randomUUID()}.pb`, bytesSource(bytes), { maxBytes: 1024 ** 2 });
  const scanId = randomUUID();
  await inventory.ingestInventory(
    {
      scanId,
      projectId,
      attempt: 1,
      ref: "",
      inventory: create(ScanArtefactSchema, {
        key: stored.key,
        sizeBytes: BigInt(stored.sizeBytes),
        sha256: stored.sha256,
      }),
    },
    await callAs.service("scanner-runner"),
  );
  return scanId;
}
