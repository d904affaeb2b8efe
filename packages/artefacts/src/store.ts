// The artefact store: large files (uploaded SBOMs, source archives, tool results) that Kafka messages only name
// by key (ARCHITECTURE.md). One interface, two backends: a directory (directory-store.ts) and an S3-compatible bucket
// (s3-store.ts). Bytes always stream: no backend holds a whole artefact in memory.
import type { Readable } from "node:stream";
import { ProblemError } from "@sca/problem";

/** What put() stored. */
export interface StoredArtefact {
  key: string;
  sizeBytes: number;
  /** Hex SHA-256 of the bytes, computed while they streamed in. */
  sha256: string;
}

export interface PutOptions {
  /** Largest artefact accepted; one byte more refuses it (413) and nothing is stored. */
  maxBytes: number;
  /** Aborting stops the write; nothing is stored. */
  signal?: AbortSignal;
}

export interface ArtefactInfo {
  sizeBytes: number;
  modifiedAt: Date;
}

export interface ListedArtefact {
  key: string;
  sizeBytes: number;
}

export interface StorageUsage {
  totalBytes: number;
  freeBytes: number;
}

/**
 * Keys are relative paths of 1 to 8 segments joined by "/", each 1 to 128 of A-Z a-z 0-9 . _ - not starting with
 * a dot (so never "." or ".."), at most 512 characters in all: the same key is a safe file path and a safe object
 * name. A key outside these rules is refused with InvalidArtefactKey before anything is touched.
 */
export interface ArtefactStore {
  /**
   * Streams `body` in under `key`, atomically: readers see the previous artefact (or none) until the whole new one
   * is in place, never part of it. Past `maxBytes`, a failing source or an abort store nothing.
   */
  put(key: string, body: Readable | AsyncIterable<Uint8Array>, options: PutOptions): Promise<StoredArtefact>;
  /** A stream of the artefact's bytes, or null when there is none under `key`. */
  get(key: string): Promise<Readable | null>;
  stat(key: string): Promise<ArtefactInfo | null>;
  /** True when something was deleted. */
  delete(key: string): Promise<boolean>;
  /** Every artefact under `prefix` (a key's leading segments; empty: all), one page of names at a time. */
  list(prefix?: string): AsyncIterable<ListedArtefact>;
  /** Space of the volume behind the store (the disk-pressure check reads it). */
  usage(): Promise<StorageUsage>;
  /** Releases what the store holds open (the S3 client's connections; a directory holds nothing). */
  close(): void;
}

export class InvalidArtefactKey extends Error {
  constructor(key: string, why: string) {
    super(`invalid artefact key ${JSON.stringify(key.slice(0, 80))}: ${why}`);
    this.name = "InvalidArtefactKey";
  }
}

export const ARTEFACT_KEY_MAX_CHARS = 512;
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/** The key's segments, or InvalidArtefactKey. */
export function artefactKeySegments(key: string): string[] {
  if (key.length === 0 || key.length > ARTEFACT_KEY_MAX_CHARS)
    throw new InvalidArtefactKey(key, `must be 1 to ${ARTEFACT_KEY_MAX_CHARS} characters`);
  const segments = key.split("/");
  if (segments.length > 8) throw new InvalidArtefactKey(key, "must have at most 8 segments");
  for (const s of segments) {
    if (!SEGMENT.test(s))
      throw new InvalidArtefactKey(key, "each segment must be 1 to 128 of A-Z a-z 0-9 . _ - and not start with a dot");
  }
  return segments;
}

/** The 413 problem of an artefact past its cap. */
export function artefactTooLarge(maxBytes: number): ProblemError {
  return new ProblemError({
    status: 413,
    code: "artefact_too_large",
    detail: `The upload is larger than the ${maxBytes} bytes accepted.`,
    extensions: { max_bytes: maxBytes },
  });
}
