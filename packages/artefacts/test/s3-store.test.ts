// The S3 backend against a real local S3 server (moto's server mode, scripts/setup/s3.sh): the shared contract
// (store-contract.ts) over a fresh bucket per test, and what only a bucket has: multipart uploads that stream and
// leave nothing behind when refused, and usage() read from a quota.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { CreateBucketCommand, ListMultipartUploadsCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { randomUUID } from "node:crypto";
import { openArtefactStore, S3ArtefactStore, UNBOUNDED_BYTES, type ArtefactStoreSettings } from "@sca/artefacts";
import { startS3Server, type TestS3Server } from "@sca/testkit";
import { chunks, describeArtefactStoreContract, MiB, readAll, sha256Of } from "./store-contract.ts";

let server: TestS3Server;
let store: S3ArtefactStore;
const stores: S3ArtefactStore[] = [];

beforeAll(async () => {
  server = await startS3Server();
}, 60_000);

afterAll(async () => {
  for (const s of stores) s.close();
  await server?.stop();
});

function settings(bucket: string, more: Partial<ArtefactStoreSettings> = {}): ArtefactStoreSettings {
  return {
    ARTEFACT_BACKEND: "s3",
    ARTEFACT_DIR: "/unused",
    ARTEFACT_S3_ENDPOINT: server.endpoint,
    ARTEFACT_S3_BUCKET: bucket,
    ARTEFACT_S3_REGION: server.region,
    ARTEFACT_S3_ACCESS_KEY_ID: server.accessKeyId,
    ARTEFACT_S3_SECRET_ACCESS_KEY: server.secretAccessKey,
    ARTEFACT_S3_FORCE_PATH_STYLE: true,
    ARTEFACT_S3_QUOTA_BYTES: 0,
    ...more,
  };
}

/** A store over a new, empty bucket, opened the way the services open theirs. */
async function freshStore(more: Partial<ArtefactStoreSettings> = {}): Promise<S3ArtefactStore> {
  const bucket = `sca-test-${randomUUID()}`.slice(0, 63);
  const opened = openArtefactStore(settings(bucket, more));
  expect(opened).toBeInstanceOf(S3ArtefactStore);
  const s3 = opened as S3ArtefactStore;
  await (await s3.client()).send(new CreateBucketCommand({ Bucket: bucket }));
  stores.push(s3);
  return s3;
}

const multipartUploads = async (s: S3ArtefactStore) =>
  (await (await s.client()).send(new ListMultipartUploadsCommand({ Bucket: s.bucket }))).Uploads ?? [];
const objects = async (s: S3ArtefactStore) =>
  (await (await s.client()).send(new ListObjectsV2Command({ Bucket: s.bucket }))).Contents ?? [];

describeArtefactStoreContract("s3", {
  store: async () => (store = await freshStore()),
  expectNoLeftovers: async () => expect(await multipartUploads(store)).toEqual([]),
  expectUntouched: async () => expect(await objects(store)).toEqual([]),
});

describe("s3 artefact store", () => {
  beforeEach(async () => {
    store = await freshStore();
  });

  it("streams an artefact larger than a part through a multipart upload and back", async () => {
    const stored = await store.put("scans/s1/big.bin", chunks(20, MiB), { maxBytes: 32 * MiB });
    expect(stored).toEqual({ key: "scans/s1/big.bin", sizeBytes: 20 * MiB, sha256: sha256Of(20, MiB) });
    expect(await store.stat("scans/s1/big.bin")).toMatchObject({ sizeBytes: 20 * MiB });
    const back = await readAll((await store.get("scans/s1/big.bin"))!);
    expect(back.length).toBe(20 * MiB);
    expect(await multipartUploads(store)).toEqual([]);
  });

  it("aborts the multipart upload of a refused artefact: no parts, no object", async () => {
    await expect(store.put("over.bin", chunks(20, MiB), { maxBytes: 12 * MiB })).rejects.toMatchObject({
      init: { status: 413 },
    });
    expect(await multipartUploads(store)).toEqual([]);
    expect(await objects(store)).toEqual([]);
  });

  it("reports a bucket without a quota as never full, and one with a quota by the bytes stored", async () => {
    expect(await store.usage()).toEqual({ totalBytes: UNBOUNDED_BYTES, freeBytes: UNBOUNDED_BYTES });
    const quota = await freshStore({ ARTEFACT_S3_QUOTA_BYTES: 1000 });
    expect(await quota.usage()).toEqual({ totalBytes: 1000, freeBytes: 1000 });
    await quota.put("a.bin", chunks(3, 100), { maxBytes: 1000 });
    expect(await quota.usage()).toEqual({ totalBytes: 1000, freeBytes: 700 });
    await quota.put("b.bin", chunks(9, 100), { maxBytes: 1000 });
    expect(await quota.usage()).toEqual({ totalBytes: 1000, freeBytes: 0 });
    await quota.delete("b.bin");
    expect(await quota.usage()).toEqual({ totalBytes: 1000, freeBytes: 700 });
  });
});
