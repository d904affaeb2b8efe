// A source scan's tree from an uploaded .tar.gz, under the rules of the .zip (source-archive.ts): read twice with
// node-tar's Parser. The first pass writes nothing and refuses the whole archive on more than
// SOURCE_ARCHIVE_MAX_ENTRIES entries, declared sizes past SOURCE_ARCHIVE_MAX_EXPANDED_BYTES, an absolute path or a
// `..` segment. The second writes directories and files (modes 0755/0644, the bytes counted as they are written) and
// makes links last: a symbolic link must be relative and resolve inside the tree, a hard link must name a regular
// file the archive holds; devices and FIFOs are skipped.
import { createReadStream, createWriteStream } from "node:fs";
import { chown, lchown, link, lstat, mkdir, open, symlink } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { Transform, type PassThrough } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Parser, type ReadEntry } from "tar";
import { JobInputError } from "../domain/scan-job.ts";
import { escapingLink } from "../sandbox/tree-checks.ts";
import type { Workspace } from "../sandbox/workspace.ts";
import { escapingLinkError, expandedTooLarge, placeOf, type ArchiveLimits } from "./archive-entries.ts";

export async function isGzip(file: string): Promise<boolean> {
  const handle = await open(file, "r");
  try {
    const head = Buffer.alloc(2);
    await handle.read(head, 0, 2, 0);
    return head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

const FILE_TYPES = new Set(["File", "OldFile", "ContiguousFile"]);

/** Each entry of the archive in turn, handed to `each` (which must consume or resume it) in order. */
async function readEntries(
  file: string,
  each: (entry: ReadEntry) => Promise<void> | void,
  signal: AbortSignal,
): Promise<void> {
  let failure: Error | undefined;
  let chain = Promise.resolve();
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      // Entries are handled one after another; the parser waits on an entry whose data is not read yet.
      chain = chain.then(async () => {
        if (failure) return void entry.resume();
        try {
          await each(entry);
        } catch (err) {
          failure ??= err as Error;
          entry.resume();
          parser.abort(failure);
        }
      });
    },
  });
  try {
    await pipeline(createReadStream(file), parser, { signal });
    await chain;
  } catch (err) {
    await chain.catch(() => undefined);
    if (failure) throw failure;
    signal.throwIfAborted();
    throw new JobInputError(`The source archive is corrupt: ${(err as Error).message.slice(0, 120)}.`);
  }
  if (failure) throw failure;
}

export async function extractTarball(
  file: string,
  ws: Workspace,
  limits: ArchiveLimits,
  signal: AbortSignal,
): Promise<{ entries: number; bytes: number }> {
  const root = ws.tree;
  // First pass: names, count and declared sizes, before anything is written.
  let count = 0;
  let declared = 0;
  await readEntries(
    file,
    (entry) => {
      entry.resume();
      placeOf(root, entry.path);
      count += 1;
      if (count > limits.maxEntries)
        throw new JobInputError(
          `The source archive holds more than ${limits.maxEntries} entries; SOURCE_ARCHIVE_MAX_ENTRIES allows ${limits.maxEntries}.`,
        );
      declared += entry.size ?? 0;
      if (declared > limits.maxExpandedBytes) throw expandedTooLarge(limits);
    },
    signal,
  );

  const own = async (path: string) => {
    if (ws.runAs) await chown(path, ws.runAs.uid, ws.runAs.gid);
  };
  const makeDirs = async (dir: string) => {
    const first = await mkdir(dir, { recursive: true, mode: 0o755 });
    if (!first) return;
    for (let d = dir; d.length >= first.length; d = dirname(d)) await own(d);
  };
  let written = 0;
  let entries = 0;
  const links: { place: string; target: string; name: string; hard: boolean }[] = [];
  await readEntries(
    file,
    async (entry) => {
      entries += 1;
      const place = placeOf(root, entry.path);
      if (place === root) return void entry.resume();
      if (entry.type === "Directory") {
        entry.resume();
        return makeDirs(place);
      }
      if (entry.type === "SymbolicLink" || entry.type === "Link") {
        entry.resume();
        links.push({ place, target: entry.linkpath ?? "", name: entry.path, hard: entry.type === "Link" });
        return;
      }
      if (!FILE_TYPES.has(entry.type)) return void entry.resume();
      await makeDirs(dirname(place));
      const counted = new Transform({
        transform(chunk: Buffer, _enc, done) {
          written += chunk.length;
          if (written > limits.maxExpandedBytes) return done(expandedTooLarge(limits));
          done(null, chunk);
        },
      });
      const mode = (entry.mode ?? 0o644) & 0o111 ? 0o755 : 0o644;
      await pipeline(entry as unknown as PassThrough, counted, createWriteStream(place, { mode, flags: "wx" }), {
        signal,
      });
      await own(place);
    },
    signal,
  );
  // Links last: no file above was written through one.
  for (const l of links) {
    if (l.hard) {
      const source = placeOf(root, l.target);
      const found = await lstat(source).catch(() => null);
      if (!found?.isFile()) throw escapingLinkError(l.name);
      await link(source, l.place);
      continue;
    }
    if (isAbsolute(l.target)) throw escapingLinkError(l.name);
    if (relative(root, resolve(dirname(l.place), l.target)).startsWith("..")) throw escapingLinkError(l.name);
    await makeDirs(dirname(l.place));
    await symlink(l.target, l.place);
    if (ws.runAs) await lchown(l.place, ws.runAs.uid, ws.runAs.gid);
  }
  const escaping = await escapingLink(root);
  if (escaping) throw escapingLinkError(escaping);
  return { entries, bytes: written };
}
