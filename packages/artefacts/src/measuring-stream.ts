// What every backend puts between the caller's bytes and the storage: a count and a SHA-256 of what passes, and
// the cap (past it the stream fails with the 413 problem, so the backend stores nothing).
import { createHash } from "node:crypto";
import { Transform, type TransformCallback } from "node:stream";
import { artefactTooLarge } from "./store.ts";

/** Counts and hashes what passes; past `maxBytes` it fails the stream with the 413 problem. */
export class MeasuringStream extends Transform {
  bytes = 0;
  private readonly hash = createHash("sha256");
  private readonly maxBytes: number;

  constructor(maxBytes: number) {
    super();
    this.maxBytes = maxBytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return done(artefactTooLarge(this.maxBytes));
    this.hash.update(chunk);
    done(null, chunk);
  }

  digest(): string {
    return this.hash.digest("hex");
  }
}
