// A source scan's tree from an uploaded .tar.gz, under the rules of the .zip (source-archive.ts): read twice with
// node-tar's Parser. The first pass writes nothing and refuses the whole archive on more than
// SOURCE_ARCHIVE_MAX_ENTRIES entries, declared sizes past SOURCE_ARCHIVE_MAX_EXPANDED_BYTES, an absolute path or a
// `..` segment. The second writes directories and files (modes 0755/0644, the bytes counted as they are written) and
// makes links last (tree-writer.ts): a symbolic link must be relative and resolve inside the tree, a hard link must
// name a regular file the archive holds; devices and FIFOs are skipped.
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import type { PassThrough } from "node:stream";
import type { ReadEntry } from "tar";
import { JobInputError } from "../domain/scan-job.ts";
import type { Workspace } from "../sandbox/workspace.ts";
import { expandedTooLarge, placeOf, type ArchiveLimits } from "./archive-entries.ts";
import { readTarEntries } from "./tar-entries.ts";
import { TreeWriter } from "./tree-writer.ts";

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
function readEntries(file: string, each: (entry: ReadEntry) => Promise<void> | void, signal: AbortSignal) {
  return readTarEntries(
    createReadStream(file),
    [],
    each,
    signal,
    (reason) => new JobInputError(`The source archive is corrupt: ${reason}.`),
  );
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

  const tree = new TreeWriter(ws, limits);
  let entries = 0;
  await readEntries(
    file,
    async (entry) => {
      entries += 1;
      const place = placeOf(root, entry.path);
      if (place === root) return void entry.resume();
      if (entry.type === "Directory") {
        entry.resume();
        return tree.directory(place);
      }
      if (entry.type === "SymbolicLink" || entry.type === "Link") {
        entry.resume();
        tree.link(place, entry.linkpath ?? "", entry.path, entry.type === "Link");
        return;
      }
      if (!FILE_TYPES.has(entry.type)) return void entry.resume();
      const mode = (entry.mode ?? 0o644) & 0o111 ? 0o755 : 0o644;
      await tree.file(place, () => entry as unknown as PassThrough, mode, signal, true);
    },
    signal,
  );
  await tree.finish();
  return { entries, bytes: tree.written };
}
