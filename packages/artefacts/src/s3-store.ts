// The artefact store in an S3-compatible bucket (ARTEFACT_BACKEND=s3), for Kubernetes without a shared volume.
// Same contract as the directory store: bytes stream in through lib-storage's multipart upload (parts of 8 MiB, two
// in flight, so memory stays bounded whatever the size), counted and hashed on the way; past maxBytes, on an abort
// or a failing source the multipart upload is aborted, so nothing appears. An object appears whole when its
// upload completes (S3 makes a PUT or a completed multipart upload visible atomically), which is the atomic
// replace the interface promises.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type * as ClientS3 from "@aws-sdk/client-s3";
import type { S3Client } from "@aws-sdk/client-s3";
import type * as LibStorage from "@aws-sdk/lib-storage";
import { MeasuringStream } from "./measuring-stream.ts";
import {
  artefactKeySegments,
  type ArtefactInfo,
  type ArtefactStore,
  type ListedArtefact,
  type PutOptions,
  type StorageUsage,
  type StoredArtefact,
} from "./store.ts";

export interface S3ArtefactStoreOptions {
  bucket: string;
  /** Empty: AWS's endpoint for the region. An S3-compatible server: its URL (http://127.0.0.1:9000). */
  endpoint?: string;
  region: string;
  /** Both empty: the SDK's default credential chain (environment, web identity in a pod, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Path-style addressing (endpoint/bucket/key), which most self-hosted S3 servers need. */
  forcePathStyle?: boolean;
  /**
   * The bucket's share for this deployment in bytes; 0: none. usage() reports it as the total and the bytes of the
   * stored objects as used. A bucket without a quota has no size to run out of: usage() reports it never full.
   */
  quotaBytes?: number;
  /** How long usage() keeps a listing's sum before listing again (the disk-pressure check runs per new scan). */
  usageCacheMs?: number;
}

/** What usage() answers for a bucket without a quota: nothing to fill (the disk-pressure check never refuses). */
export const UNBOUNDED_BYTES = Number.MAX_SAFE_INTEGER;

const PART_SIZE = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

// An abort arrives as a DOMException, which is not an Error of every realm (jest's): anything error-shaped is kept.
const asError = (err: unknown): Error =>
  err instanceof Error || (typeof err === "object" && err !== null && "message" in err)
    ? (err as Error)
    : new Error(String(err));

// The SDK is loaded when a store is first opened on S3, not with this module: every process imports the artefacts
// package, most use the directory store, and loading the SDK costs each of them about half a CPU-second.
let loadedSdk: Promise<[typeof ClientS3, typeof LibStorage]> | undefined;
const sdk = () => (loadedSdk ??= Promise.all([import("@aws-sdk/client-s3"), import("@aws-sdk/lib-storage")]));

async function isNotFound(err: unknown): Promise<boolean> {
  const [{ S3ServiceException }] = await sdk();
  return (
    err instanceof S3ServiceException &&
    (err.name === "NoSuchKey" || err.name === "NotFound" || err.$metadata.httpStatusCode === 404)
  );
}

export class S3ArtefactStore implements ArtefactStore {
  readonly bucket: string;
  private readonly s3: Promise<S3Client>;
  private readonly quotaBytes: number;
  private readonly usageCacheMs: number;
  private usedBytes: { value: number; at: number } | undefined;

  constructor(opts: S3ArtefactStoreOptions) {
    this.bucket = opts.bucket;
    this.quotaBytes = opts.quotaBytes ?? 0;
    this.usageCacheMs = opts.usageCacheMs ?? 60_000;
    this.s3 = sdk().then(
      ([{ S3Client }]) =>
        new S3Client({
          region: opts.region,
          endpoint: opts.endpoint || undefined,
          forcePathStyle: opts.forcePathStyle ?? false,
          credentials:
            opts.accessKeyId && opts.secretAccessKey
              ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey }
              : undefined,
          // Checksums only when S3 requires them: several S3-compatible servers reject the newer default trailers.
          requestChecksumCalculation: "WHEN_REQUIRED",
          responseChecksumValidation: "WHEN_REQUIRED",
        }),
    );
  }

  /** The SDK's client, once the SDK is loaded. */
  client(): Promise<S3Client> {
    return this.s3;
  }

  /** The object name of `key` (the key itself, once checked: the key rules make it a safe object name). */
  private objectKey(key: string): string {
    artefactKeySegments(key);
    return key;
  }

  async put(key: string, body: Readable | AsyncIterable<Uint8Array>, options: PutOptions): Promise<StoredArtefact> {
    const Key = this.objectKey(key);
    options.signal?.throwIfAborted();
    const measuring = new MeasuringStream(options.maxBytes);
    const [, { Upload }] = await sdk();
    const upload = new Upload({
      client: await this.s3,
      params: { Bucket: this.bucket, Key, Body: measuring },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
      // A failed upload aborts its multipart upload: no parts are left behind to be billed or to appear.
      leavePartsOnError: false,
    });
    const onAbort = () => void upload.abort().catch(() => undefined);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    // The source is pumped into the measuring stream while the upload reads from it: a source failure, the cap or
    // an abort destroys the measuring stream, which fails (and aborts) the upload; a failed upload destroys it too,
    // so the pump never waits on a reader that is gone.
    let pumpError: Error | undefined;
    const pumped = pipeline(body, measuring, { signal: options.signal }).catch((err: unknown) => {
      pumpError = asError(err);
    });
    let uploadError: Error | undefined;
    try {
      await upload.done();
    } catch (err) {
      uploadError = asError(err);
      measuring.destroy(uploadError);
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
    }
    await pumped;
    // The source's own failure (413, an abort) says more than the upload's reaction to it.
    if (pumpError) throw pumpError;
    if (uploadError) throw uploadError;
    this.usedBytes = undefined;
    return { key, sizeBytes: measuring.bytes, sha256: measuring.digest() };
  }

  async get(key: string): Promise<Readable | null> {
    try {
      const [{ GetObjectCommand }] = await sdk();
      const res = await (await this.s3).send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      // In Node the SDK's body is an http.IncomingMessage: a Readable already.
      return res.Body instanceof Readable ? res.Body : Readable.from(res.Body as AsyncIterable<Uint8Array>);
    } catch (err) {
      if (await isNotFound(err)) return null;
      throw err;
    }
  }

  async stat(key: string): Promise<ArtefactInfo | null> {
    try {
      const [{ HeadObjectCommand }] = await sdk();
      const res = await (await this.s3).send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return { sizeBytes: res.ContentLength ?? 0, modifiedAt: res.LastModified ?? new Date(0) };
    } catch (err) {
      if (await isNotFound(err)) return null;
      throw err;
    }
  }

  /** S3's DELETE answers the same whether the object existed, so a HEAD first tells the caller which it was. */
  async delete(key: string): Promise<boolean> {
    const Key = this.objectKey(key);
    const existed = (await this.stat(key)) !== null;
    if (existed) {
      const [{ DeleteObjectCommand }] = await sdk();
      await (await this.s3).send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
      this.usedBytes = undefined;
    }
    return existed;
  }

  async *list(prefix = ""): AsyncIterable<ListedArtefact> {
    const Prefix = prefix ? `${this.objectKey(prefix)}/` : undefined;
    const [{ ListObjectsV2Command }] = await sdk();
    const client = await this.s3;
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix, ContinuationToken }));
      for (const object of page.Contents ?? []) if (object.Key) yield { key: object.Key, sizeBytes: object.Size ?? 0 };
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  /**
   * Without a quota: unbounded (never under pressure). With one: the quota as the total, and as used the bytes of
   * every object in the bucket (a listing, kept `usageCacheMs`); free never goes below 0.
   */
  async usage(): Promise<StorageUsage> {
    if (this.quotaBytes <= 0) return { totalBytes: UNBOUNDED_BYTES, freeBytes: UNBOUNDED_BYTES };
    const now = Date.now();
    if (!this.usedBytes || now - this.usedBytes.at > this.usageCacheMs) {
      let used = 0;
      const [{ ListObjectsV2Command }] = await sdk();
      const client = await this.s3;
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: this.bucket, ContinuationToken }));
        for (const object of page.Contents ?? []) used += object.Size ?? 0;
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
      this.usedBytes = { value: used, at: now };
    }
    return { totalBytes: this.quotaBytes, freeBytes: Math.max(0, this.quotaBytes - this.usedBytes.value) };
  }

  /** Closes the client's connections. */
  close(): void {
    void this.s3.then((client) => client.destroy());
  }
}
