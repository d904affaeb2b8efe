// The artefact store in a directory (ARTEFACT_DIR): a single machine, or a volume shared by the pods. Writes go to
// a temporary file under <root>/.tmp (same file system, a name no key can take) and are renamed into place once
// complete and flushed, so a reader never sees part of an artefact and a crash leaves only a temporary file, which
// removeStaleTemporaryFiles() sweeps.
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, open, readdir, rename, rm, stat, statfs, unlink } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { MeasuringStream } from "./measuring-stream.ts";
import {
  artefactKeySegments,
  InvalidArtefactKey,
  type ArtefactInfo,
  type ArtefactStore,
  type ListedArtefact,
  type PutOptions,
  type StorageUsage,
  type StoredArtefact,
} from "./store.ts";

const TEMPORARY_DIR = ".tmp";

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === "ENOENT";

export class DirectoryArtefactStore implements ArtefactStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** The file of `key`, refused when the key is not one (artefactKeySegments) or would leave the root anyway. */
  pathOf(key: string): string {
    const path = resolve(this.root, ...artefactKeySegments(key));
    if (!path.startsWith(this.root + sep)) throw new InvalidArtefactKey(key, "must stay inside the store");
    return path;
  }

  async put(key: string, body: Readable | AsyncIterable<Uint8Array>, options: PutOptions): Promise<StoredArtefact> {
    const target = this.pathOf(key);
    const temporaryDir = join(this.root, TEMPORARY_DIR);
    await mkdir(temporaryDir, { recursive: true });
    const temporary = join(temporaryDir, `${randomUUID()}.part`);
    const measuring = new MeasuringStream(options.maxBytes);
    try {
      const file = createWriteStream(temporary, { flags: "wx" });
      await pipeline(body, measuring, file, { signal: options.signal });
      // The bytes reach the disk before the name does: after a crash the key holds the old or the new artefact.
      const handle = await open(temporary, "r");
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await mkdir(dirname(target), { recursive: true });
      await rename(temporary, target);
    } catch (err) {
      await rm(temporary, { force: true });
      throw err;
    }
    return { key, sizeBytes: measuring.bytes, sha256: measuring.digest() };
  }

  async get(key: string): Promise<Readable | null> {
    const path = this.pathOf(key);
    try {
      // Opened before answering, so a missing artefact is null rather than a stream that fails later.
      const handle = await open(path, "r");
      return handle.createReadStream();
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async stat(key: string): Promise<ArtefactInfo | null> {
    try {
      const s = await stat(this.pathOf(key));
      return s.isFile() ? { sizeBytes: s.size, modifiedAt: s.mtime } : null;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<boolean> {
    try {
      await unlink(this.pathOf(key));
      return true;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  async *list(prefix = ""): AsyncIterable<ListedArtefact> {
    const start = prefix ? this.pathOf(prefix) : this.root;
    yield* this.walk(start, prefix);
  }

  /** Files under `dir` depth first in name order; the temporary directory (a name no key can take) is skipped. */
  private async *walk(dir: string, keyPrefix: string): AsyncIterable<ListedArtefact> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (isMissing(err) || (err as NodeJS.ErrnoException).code === "ENOTDIR") return;
      throw err;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const key = keyPrefix ? `${keyPrefix}/${entry.name}` : entry.name;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) yield* this.walk(path, key);
      else if (entry.isFile()) {
        const s = await stat(path).catch(() => undefined);
        if (s) yield { key, sizeBytes: s.size };
      }
    }
  }

  async usage(): Promise<StorageUsage> {
    await mkdir(this.root, { recursive: true });
    const s = await statfs(this.root);
    return { totalBytes: s.blocks * s.bsize, freeBytes: s.bavail * s.bsize };
  }

  close(): void {
    // Nothing is held open between calls.
  }

  /** Deletes temporary files of writes that never finished (a crashed process) older than `olderThan`. */
  async removeStaleTemporaryFiles(olderThan: Date): Promise<number> {
    const temporaryDir = join(this.root, TEMPORARY_DIR);
    let names: string[];
    try {
      names = await readdir(temporaryDir);
    } catch (err) {
      if (isMissing(err)) return 0;
      throw err;
    }
    let removed = 0;
    for (const name of names) {
      const path = join(temporaryDir, name);
      const s = await stat(path).catch(() => undefined);
      if (s && s.mtime < olderThan) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }
}

/** A Readable of some bytes, for callers that have them in memory already (small artefacts, tests). */
export function bytesSource(bytes: Uint8Array | string): Readable {
  return Readable.from([typeof bytes === "string" ? Buffer.from(bytes) : Buffer.from(bytes)]);
}
