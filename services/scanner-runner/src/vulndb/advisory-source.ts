// The advisory documents of a source in the forms OSV mirrors publish: a directory of JSON files, a .zip (OSV's
// per-ecosystem all.zip), a .tar or .tar.gz; from a path or an http(s) URL (downloaded to a private temporary file
// first). Documents are read one at a time (bounded memory); a corrupt or truncated archive throws, so the import
// that reads it fails before anything is written.
import { createWriteStream } from "node:fs";
import { mkdtemp, open, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import * as tar from "tar";
import yauzl from "yauzl";

/** A single advisory file larger than this is refused (OSV records are a few kB; the largest a few MB). */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;
/** A download or an archive larger than this is refused. */
export const MAX_ARCHIVE_BYTES = 4 * 1024 * 1024 * 1024;

export interface AdvisoryDocument {
  /** The file's path inside the source, for skipped-advisory reasons. */
  name: string;
  text: string | null;
  /** Why the file was not read (too large), when text is null. */
  unreadable?: string;
}

export class AdvisorySourceError extends Error {}

const isJsonName = (name: string): boolean => name.toLowerCase().endsWith(".json");

/** A source as shown in the status panel: a URL without credentials, query or fragment; a path as given. */
export function sourceLabel(source: string): string {
  if (!/^https?:\/\//i.test(source)) return source;
  try {
    const u = new URL(source);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "(an invalid URL)";
  }
}

async function* directoryDocuments(root: string, dir = root): AsyncGenerator<AdvisoryDocument> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* directoryDocuments(root, path);
    else if (entry.isFile() && isJsonName(entry.name)) {
      const size = (await stat(path)).size;
      const name = relative(root, path);
      yield size > MAX_DOCUMENT_BYTES
        ? { name, text: null, unreadable: "the file is larger than 16 MiB" }
        : { name, text: await readFile(path, "utf8") };
    }
  }
}

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(
      path,
      { lazyEntries: true, autoClose: true, strictFileNames: false, validateEntrySizes: true },
      (err, zip) =>
        err ? reject(new AdvisorySourceError(`The zip archive cannot be read: ${err.message}`)) : resolve(zip),
    ),
  );
}

async function* zipDocuments(path: string): AsyncGenerator<AdvisoryDocument> {
  const zip = await openZip(path);
  try {
    for (;;) {
      const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
        const onEntry = (e: yauzl.Entry) => done(e);
        const onEnd = () => done(null);
        const onError = (err: Error) => {
          zip.off("entry", onEntry).off("end", onEnd);
          reject(new AdvisorySourceError(`The zip archive is corrupt: ${err.message}`));
        };
        const done = (e: yauzl.Entry | null) => {
          zip.off("entry", onEntry).off("end", onEnd).off("error", onError);
          resolve(e);
        };
        zip.once("entry", onEntry).once("end", onEnd).once("error", onError);
        zip.readEntry();
      });
      if (!entry) return;
      if (entry.fileName.endsWith("/") || !isJsonName(entry.fileName)) continue;
      if (entry.uncompressedSize > MAX_DOCUMENT_BYTES) {
        yield { name: entry.fileName, text: null, unreadable: "the file is larger than 16 MiB" };
        continue;
      }
      const stream = await new Promise<Readable>((resolve, reject) =>
        zip.openReadStream(entry, (err, s) =>
          err ? reject(new AdvisorySourceError(`The zip archive is corrupt: ${err.message}`)) : resolve(s),
        ),
      );
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of stream) chunks.push(chunk as Buffer);
      } catch (err) {
        throw new AdvisorySourceError(`The zip archive is corrupt: ${(err as Error).message}`);
      }
      yield { name: entry.fileName, text: Buffer.concat(chunks).toString("utf8") };
    }
  } finally {
    zip.close();
  }
}

/** A tar (gzip or not) is unpacked into a private directory (tar's own path checks apply), then read as one. */
async function* tarDocuments(path: string): AsyncGenerator<AdvisoryDocument> {
  const dir = await mkdtemp(join(tmpdir(), "sca-vulndb-tar-"));
  try {
    try {
      await tar.x({
        file: path,
        cwd: dir,
        strict: true,
        filter: (name, entry) => isJsonName(name) && ("size" in entry ? entry.size <= MAX_DOCUMENT_BYTES : true),
      });
    } catch (err) {
      throw new AdvisorySourceError(`The tar archive is corrupt or truncated: ${(err as Error).message}`);
    }
    yield* directoryDocuments(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function archiveKind(path: string): Promise<"zip" | "tar"> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(4);
    await handle.read(head, 0, 4, 0);
    return head[0] === 0x50 && head[1] === 0x4b ? "zip" : "tar";
  } finally {
    await handle.close();
  }
}

async function* fileDocuments(path: string): AsyncGenerator<AdvisoryDocument> {
  const info = await stat(path).catch(() => null);
  if (!info) throw new AdvisorySourceError(`The advisory source ${path} does not exist.`);
  if (info.isDirectory()) yield* directoryDocuments(path);
  else if ((await archiveKind(path)) === "zip") yield* zipDocuments(path);
  else yield* tarDocuments(path);
}

/** Downloads a URL to a private temporary file (the whole body, or an error: never a partial file read). */
async function download(url: string, dir: string, signal: AbortSignal): Promise<string> {
  const res = await fetch(url, { signal, redirect: "follow" }).catch((err: unknown) => {
    throw new AdvisorySourceError(`The advisory source could not be reached (${(err as Error).message}).`);
  });
  if (!res.ok || !res.body) throw new AdvisorySourceError(`The advisory source answered HTTP ${res.status}.`);
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (declared > MAX_ARCHIVE_BYTES) throw new AdvisorySourceError("The advisory archive is larger than 4 GiB.");
  const file = join(dir, "download");
  let received = 0;
  const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  body.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_ARCHIVE_BYTES)
      body.destroy(new AdvisorySourceError("The advisory archive is larger than 4 GiB."));
  });
  try {
    await pipeline(body, createWriteStream(file));
  } catch (err) {
    if (err instanceof AdvisorySourceError) throw err;
    throw new AdvisorySourceError(`The download of the advisory source broke off (${(err as Error).message}).`);
  }
  if (Number.isFinite(declared) && received !== declared)
    throw new AdvisorySourceError("The download of the advisory source was truncated.");
  return file;
}

/** Every JSON document of the source, in a stable order. */
export async function* advisoryDocuments(source: string, signal: AbortSignal): AsyncGenerator<AdvisoryDocument> {
  if (!/^https?:\/\//i.test(source)) {
    yield* fileDocuments(source);
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), "sca-vulndb-download-"));
  try {
    yield* fileDocuments(await download(source, dir, signal));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
