// A source scan's tree from an uploaded .zip (yauzl, streamed; a .tar.gz goes to source-tarball.ts, same rules): copied from the artefact store into the job's
// workspace (size and SHA-256 checked against the upload), then read twice. The first pass reads only the central
// directory and refuses the whole archive before a byte is written: more than SOURCE_ARCHIVE_MAX_ENTRIES entries,
// declared sizes past SOURCE_ARCHIVE_MAX_EXPANDED_BYTES, absolute paths, `..` segments, encrypted entries. The
// second writes files and directories, counting the bytes actually inflated (yauzl also checks each entry against
// its declared size, so a lying header stops too), and makes symbolic links last, each checked to stay inside the
// tree, so no file is ever written through a link.
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ArtefactStore } from "@sca/artefacts";
import type { ScanArtefact } from "@sca/proto/sca/events/v1/scans_pb.ts";
import yauzl from "yauzl";
import { JobInputError } from "../domain/scan-job.ts";
import type { Workspace } from "../sandbox/workspace.ts";
import { escapingLinkError, expandedTooLarge, placeOf, type ArchiveLimits } from "./archive-entries.ts";
import { extractTarball, isGzip } from "./source-tarball.ts";
import { sizeAndDigest } from "./stream-checks.ts";
import { TreeWriter } from "./tree-writer.ts";

const LINK_TARGET_MAX_BYTES = 4096;

/** Copies the uploaded archive to `file`, checking its size and SHA-256 against the job's reference. */
async function copyArchive(
  store: ArtefactStore,
  artefact: ScanArtefact,
  file: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<void> {
  if (artefact.sizeBytes > BigInt(maxBytes))
    throw new JobInputError(`The source archive is larger than SOURCE_ARCHIVE_MAX_BYTES (${maxBytes} bytes).`);
  const stream = await store.get(artefact.key);
  if (!stream)
    throw new JobInputError("The uploaded source archive is no longer in the artefact store; upload it again.");
  const check = sizeAndDigest(maxBytes, mismatch);
  await pipeline(stream, check.stream, createWriteStream(file, { mode: 0o600 }), { signal });
  if (
    BigInt(check.size()) !== artefact.sizeBytes ||
    (artefact.sha256 && check.sha256() !== artefact.sha256.toLowerCase())
  )
    throw mismatch();
}

function mismatch(): JobInputError {
  return new JobInputError(
    "The uploaded source archive does not match the size and SHA-256 recorded when it was uploaded; upload it again.",
  );
}

const openZip = (file: string) =>
  new Promise<yauzl.ZipFile>((ok, fail) =>
    yauzl.open(
      file,
      { lazyEntries: true, validateEntrySizes: true, decodeStrings: true, strictFileNames: false },
      (err, zip) => (err ? fail(err) : ok(zip)),
    ),
  );

/** Each entry of the zip in turn (the central directory only). */
async function* entriesOf(zip: yauzl.ZipFile): AsyncGenerator<yauzl.Entry> {
  const queue: yauzl.Entry[] = [];
  let done = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  zip.on("entry", (e: yauzl.Entry) => (queue.push(e), wake?.()));
  zip.on("end", () => ((done = true), wake?.()));
  zip.on("error", (err: Error) => ((failure = err), wake?.()));
  zip.readEntry();
  for (;;) {
    if (failure) throw failure;
    const next = queue.shift();
    if (next) {
      yield next;
      zip.readEntry();
      continue;
    }
    if (done) return;
    await new Promise<void>((r) => (wake = r));
  }
}

const isLink = (e: yauzl.Entry) => ((e.externalFileAttributes >>> 16) & 0o170000) === 0o120000;
const isDir = (e: yauzl.Entry) => e.fileName.endsWith("/");

/** First pass: everything the central directory tells, before anything is written. */
async function survey(file: string, root: string, limits: ArchiveLimits): Promise<void> {
  const zip = await openZip(file);
  try {
    if (zip.entryCount > limits.maxEntries)
      throw new JobInputError(
        `The source archive holds ${zip.entryCount} entries; SOURCE_ARCHIVE_MAX_ENTRIES allows ${limits.maxEntries}.`,
      );
    let declared = 0;
    for await (const entry of entriesOf(zip)) {
      placeOf(root, entry.fileName);
      if (entry.isEncrypted())
        throw new JobInputError(`The source archive holds an encrypted entry (${entry.fileName.slice(0, 200)}).`);
      declared += entry.uncompressedSize;
      if (declared > limits.maxExpandedBytes) throw expandedTooLarge(limits);
    }
  } finally {
    zip.close();
  }
}

const readStreamOf = (zip: yauzl.ZipFile, entry: yauzl.Entry) =>
  new Promise<Readable>((ok, fail) => zip.openReadStream(entry, (err, s) => (err ? fail(err) : ok(s))));

/** Extracts the uploaded archive into `ws.tree`; answers the entries and bytes written. */
export async function extractSourceArchive(
  store: ArtefactStore,
  artefact: ScanArtefact | undefined,
  ws: Workspace,
  limits: ArchiveLimits,
  signal: AbortSignal,
): Promise<{ entries: number; bytes: number }> {
  if (!artefact?.key) throw new JobInputError("The scan names no uploaded source archive.");
  const file = join(ws.root, "archive.zip");
  await copyArchive(store, artefact, file, limits.maxBytes, signal);
  if (await isGzip(file)) return extractTarball(file, ws, limits, signal);
  const root = ws.tree;
  try {
    await survey(file, root, limits);
  } catch (err) {
    if (err instanceof JobInputError) throw err;
    // yauzl refuses these names itself while reading the directory; say so in our words.
    const text = err instanceof Error ? err.message : "";
    const refused = /^(?:absolute path|invalid relative path|invalid characters in fileName): (.*)$/s.exec(text);
    if (refused) {
      placeOf(root, refused[1]!);
      throw new JobInputError(
        `The source archive holds an entry name with a backslash (${refused[1]!.slice(0, 200)}).`,
      );
    }
    throw new JobInputError("The source archive is not a readable .zip file.");
  }

  const tree = new TreeWriter(ws, limits);
  const zip = await openZip(file);
  let entries = 0;
  try {
    for await (const entry of entriesOf(zip)) {
      signal.throwIfAborted();
      entries += 1;
      const place = placeOf(root, entry.fileName);
      if (isDir(entry)) {
        await tree.directory(place);
        continue;
      }
      if (isLink(entry)) {
        if (entry.uncompressedSize > LINK_TARGET_MAX_BYTES) throw escapingLinkError(entry.fileName);
        const chunks: Buffer[] = [];
        for await (const chunk of (await readStreamOf(zip, entry)) as AsyncIterable<Buffer>) chunks.push(chunk);
        tree.link(place, Buffer.concat(chunks).toString("utf8"), entry.fileName);
        continue;
      }
      await tree.file(place, () => readStreamOf(zip, entry), 0o644, signal);
    }
  } catch (err) {
    if (err instanceof JobInputError || signal.aborted) throw err;
    throw new JobInputError("The source archive is corrupt: an entry could not be inflated as its header describes.");
  } finally {
    zip.close();
  }
  await tree.finish();
  return { entries, bytes: tree.written };
}
