// The upload expiry sweep against a started scan-orchestrator's database: uploads a scan names are kept, and however
// many of them are expired, a sweep still reaches the unnamed ones behind them (it used to take the oldest expired
// page and drop the named rows from it, so a page full of named uploads starved every later sweep).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bytesSource, DirectoryArtefactStore } from "@sca/artefacts";
import { startService, type TestService } from "@sca/testkit";
import { service } from "../src/service.ts";
import { ScanUpload } from "../src/store/entities/scan-upload.ts";
import { sweepUploads } from "../src/store/upload-sweep.ts";
import { makeScan, newId } from "./support/scan-fixtures.ts";

let so: TestService;
let dir: string;
let store: DirectoryArtefactStore;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-upload-sweep-"));
  store = new DirectoryArtefactStore(dir);
  so = await startService(service, { env: { ARTEFACT_DIR: dir } });
}, 60_000);

afterAll(async () => {
  await so?.close();
  await rm(dir, { recursive: true, force: true });
});

async function upload(projectId: string, teamId: string, expiredMinutesAgo: number): Promise<string> {
  const id = randomUUID();
  const key = `uploads/${projectId}/${id}`;
  const stored = await store.put(key, bytesSource("{}"), { maxBytes: 10 });
  await so.orm.em.fork().insert(ScanUpload, {
    id,
    projectId,
    teamId,
    kind: "sbom",
    artefactKey: key,
    sizeBytes: stored.sizeBytes,
    sha256: stored.sha256,
    mediaType: "application/json",
    fileName: "",
    uploadedByUserId: null,
    uploadedByApiKeyId: null,
    expiresAt: new Date(Date.now() - expiredMinutesAgo * 60_000),
  });
  return id;
}

const exists = async (id: string) => (await so.orm.em.fork().count(ScanUpload, { id })) === 1;

describe("upload expiry sweep", () => {
  it("deletes an expired unnamed upload even when more named ones than a sweep takes expired before it", async () => {
    const [projectId, teamId] = [newId(), newId()];
    const named: string[] = [];
    for (const minutes of [30, 20, 10]) {
      const id = await upload(projectId, teamId, minutes);
      await makeScan(so.orm, { teamId, projectId, sbomUploadId: id });
      named.push(id);
    }
    const unnamed = await upload(projectId, teamId, 5);
    const notYet = await upload(projectId, teamId, -60);

    // Two rows per sweep: fewer than the named uploads that expired first.
    const swept = await sweepUploads(so.orm, store, new Date(), new AbortController().signal, 2);
    expect(swept).toEqual({ deleted: 1 });
    expect(await exists(unnamed)).toBe(false);
    expect(await store.stat(`uploads/${projectId}/${unnamed}`)).toBeNull();
    for (const id of [...named, notYet]) expect(await exists(id)).toBe(true);
    expect(await sweepUploads(so.orm, store, new Date(), new AbortController().signal, 2)).toEqual({ deleted: 0 });
  });
});
