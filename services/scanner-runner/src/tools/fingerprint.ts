// The fingerprint stage's I/O (docs/fingerprint.md): the tree's regular files hashed as git blobs (their SWHIDs),
// streamed so no file is held in memory, and the SWHIDs (only they: no path, no byte of a file) posted in batches to
// the knowledge base's /known/ endpoint. Links are not followed and `.git` is skipped.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import {
  contentSwhid,
  KNOWN_BATCH_MAX,
  knownFilesOf,
  type FileFingerprint,
  type KnownFile,
} from "../domain/fingerprint/known-files.ts";

export interface FingerprintOptions {
  /** FINGERPRINT_API_URL: the /known/ endpoint. */
  apiUrl: string;
  /** FINGERPRINT_API_KEY: sent as a bearer token when set. */
  apiKey: string;
}

/** Files past this many are not fingerprinted (the log says so). */
export const FINGERPRINT_MAX_FILES = 200_000;
/** An answer past this size is refused. */
const ANSWER_MAX_BYTES = 16 * 1024 ** 2;

/** git's blob id of a file: SHA-1 of "blob <size>\0" and the bytes, streamed. */
async function blobSha1(path: string, size: number, signal: AbortSignal): Promise<string> {
  const hash = createHash("sha1").update(`blob ${size}\0`);
  for await (const chunk of createReadStream(path, { signal })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Every regular file under `tree` (paths relative to it, sorted), at most FINGERPRINT_MAX_FILES. */
export async function fingerprintTree(
  tree: string,
  signal: AbortSignal,
): Promise<{ files: FileFingerprint[]; truncated: boolean }> {
  const files: FileFingerprint[] = [];
  const pending = [tree];
  while (pending.length) {
    const dir = pending.pop()!;
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      signal.throwIfAborted();
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== ".git") pending.push(path);
        continue;
      }
      if (!entry.isFile()) continue;
      if (files.length >= FINGERPRINT_MAX_FILES) return { files, truncated: true };
      const { size } = await lstat(path);
      files.push({ path: relative(tree, path), swhid: contentSwhid(await blobSha1(path, size, signal)) });
    }
  }
  return { files, truncated: false };
}

/** The answer's bytes, read as they come and refused past ANSWER_MAX_BYTES. */
async function boundedBody(res: Response): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (!res.body) return Buffer.alloc(0);
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > ANSWER_MAX_BYTES)
      throw new Error(`the knowledge base's answer is larger than ${ANSWER_MAX_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The knowledge base's answer for the SWHIDs, asked KNOWN_BATCH_MAX at a time; throws when it fails. */
export async function askKnowledgeBase(
  swhids: readonly string[],
  opts: FingerprintOptions,
  signal: AbortSignal,
): Promise<Map<string, KnownFile>> {
  const known = new Map<string, KnownFile>();
  const distinct = [...new Set(swhids)];
  for (let i = 0; i < distinct.length; i += KNOWN_BATCH_MAX) {
    const batch = distinct.slice(i, i + KNOWN_BATCH_MAX);
    const res = await fetch(opts.apiUrl, {
      method: "POST",
      signal,
      redirect: "error",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "user-agent": "sca-portal-scanner-runner (fingerprint stage)",
        ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
      },
      body: JSON.stringify(batch),
    });
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw new Error(`the knowledge base answered HTTP ${res.status}`);
    }
    const body = await boundedBody(res);
    let answer: unknown;
    try {
      answer = JSON.parse(body.toString("utf8"));
    } catch {
      throw new Error("the knowledge base's answer is not JSON");
    }
    for (const [swhid, file] of knownFilesOf(answer, batch)) known.set(swhid, file);
  }
  return known;
}
