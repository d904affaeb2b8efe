// Scans made directly in the database of a started scan-orchestrator, through its own store (creating scans through
// the API needs the projects service).
import { randomUUID } from "node:crypto";
import type { MikroORM } from "@mikro-orm/postgresql";
import { uuidv7 } from "@sca/kafka";
import { normalizeScanRef } from "../../src/domain/refs.ts";
import { insertScan, type NewScan, type ScanRow } from "../../src/store/scans.ts";

export interface ScanFixture extends Partial<NewScan> {
  teamId: string;
  projectId: string;
}

export async function makeScan(orm: MikroORM, f: ScanFixture): Promise<ScanRow> {
  const kind = f.kind ?? "sbom";
  const ref = f.ref ?? "";
  const normalized = normalizeScanRef(kind, ref);
  if (!normalized.ok) throw new Error(normalized.message);
  const status = f.status ?? "queued";
  return insertScan(orm.em.fork(), {
    id: uuidv7(),
    projectName: "Payments API",
    projectSlug: "payments-api",
    kind,
    trigger: "manual",
    ref,
    normalizedRef: normalized.normalized,
    release: null,
    metadata: {},
    requestedByUserId: null,
    requestedByApiKeyId: null,
    sbomUploadId: null,
    sourceArchiveId: null,
    imageArchiveId: null,
    ...(status === "running" ? { startedAt: new Date(), leaseExpiresAt: new Date(Date.now() + 180_000) } : {}),
    ...f,
    status,
  });
}

export const newId = (): string => randomUUID();
