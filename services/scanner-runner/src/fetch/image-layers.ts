// An image's layers applied in order into the job's tree, as a container runtime would stack them, treating every
// layer as hostile. node-tar's Parser reads each layer (tar, gzip or zstd) as a stream; each entry is applied here
// synchronously, in order, so nothing is buffered and no entry races another:
// - names: a leading / or ./ is dropped (layers name paths from the image's root); a `..` segment refuses the image;
// - whiteouts: `.wh.<name>` removes <name> of the layers below, `.wh..wh..opq` empties its directory of them;
// - no entry is ever written through a symbolic link (an entry whose parent is a link is skipped, counted), and a
//   file replacing anything is written fresh (O_EXCL), never into what was there;
// - symbolic links: an absolute target is rewritten relative to the tree (it means the image's /, not the runner's),
//   a relative one leading out is dropped; after the last layer, links that lead out together are removed too;
// - hard links only to a regular file already in the tree; devices, FIFOs and sockets are skipped;
// - modes 0755/0644 (the execute bit kept), owned by the sandbox user; SCAN_IMAGE_MAX_ENTRIES and
//   SCAN_IMAGE_MAX_EXPANDED_BYTES over all layers together, counted as bytes are written.
import {
  closeSync,
  lchownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeSync,
  constants,
} from "node:fs";
import { rm } from "node:fs/promises";
import { createReadStream } from "node:fs";
import { dirname, join, posix, relative, resolve, sep } from "node:path";
import { pipeline } from "node:stream/promises";
import { Parser, type ReadEntry } from "tar";
import { JobInputError } from "../domain/scan-job.ts";
import { escapingLinks } from "../sandbox/tree-checks.ts";
import type { Workspace } from "../sandbox/workspace.ts";

export interface LayerLimits {
  maxEntries: number;
  maxExpandedBytes: number;
}

export interface UnpackTally {
  entries: number;
  bytes: number;
  whiteouts: number;
  /** Entries not applied: through a link, links leading out, devices and the like. */
  skipped: number;
}

const inside = (root: string, path: string) => path === root || path.startsWith(root + sep);

export class LayerStack {
  readonly tally: UnpackTally = { entries: 0, bytes: 0, whiteouts: 0, skipped: 0 };

  private readonly ws: Workspace;
  private readonly limits: LayerLimits;

  constructor(ws: Workspace, limits: LayerLimits) {
    this.ws = ws;
    this.limits = limits;
  }

  private get root(): string {
    return this.ws.tree;
  }

  /** Applies the layer in `file` (the `index`th, 1-based, for messages) over what the tree holds. */
  async apply(file: string, index: number, signal: AbortSignal): Promise<void> {
    const created = new Set<string>();
    let failure: Error | undefined;
    const fail = (err: Error) => {
      failure ??= err;
      parser.abort(err);
    };
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        if (failure) return void entry.resume();
        try {
          this.entry(entry, index, created, fail);
        } catch (err) {
          entry.resume();
          fail(err as Error);
        }
      },
    });
    parser.on("warn", (_code: string, message: string | Error) => {
      failure ??= new JobInputError(
        `The image's layer ${index} is not a readable tar archive (${String(message).slice(0, 120)}).`,
      );
    });
    try {
      await pipeline(createReadStream(file), parser, { signal });
    } catch (err) {
      if (failure) throw failure;
      signal.throwIfAborted();
      throw new JobInputError(
        `The image's layer ${index} is not a readable tar archive (${(err as Error).message.slice(0, 120)}).`,
      );
    }
    if (failure) throw failure;
  }

  /** Removes links that lead out of the tree when followed through each other; answers how many. */
  async dropEscapingLinks(): Promise<number> {
    const found: string[] = [];
    for await (const link of escapingLinks(this.root)) found.push(link);
    for (const link of found) await rm(join(this.root, link), { force: true });
    this.tally.skipped += found.length;
    return found.length;
  }

  private own(path: string): void {
    if (this.ws.runAs) lchownSync(path, this.ws.runAs.uid, this.ws.runAs.gid);
  }

  /** The directory `segments` names, made as needed; null when one of them is a link (or not a directory). */
  private directory(segments: string[]): string | null {
    let dir = this.root;
    for (const segment of segments) {
      dir = join(dir, segment);
      const found = lstatOrNull(dir);
      if (found?.isDirectory()) continue;
      if (found?.isSymbolicLink()) return null;
      if (found) rmSync(dir, { force: true });
      mkdirSync(dir, { mode: 0o755 });
      this.own(dir);
    }
    return dir;
  }

  private entry(entry: ReadEntry, index: number, created: Set<string>, fail: (err: Error) => void): void {
    const name = entry.path;
    const segments = name.split("/").filter((s) => s !== "" && s !== ".");
    if (segments.includes(".."))
      throw new JobInputError(
        `The image's layer ${index} holds an entry climbing out of the tree with .. (${name.slice(0, 200)}).`,
      );
    if (segments.length === 0) return void entry.resume();
    this.tally.entries += 1;
    if (this.tally.entries > this.limits.maxEntries)
      throw new JobInputError(
        `The image's layers hold more than ${this.limits.maxEntries} entries (SCAN_IMAGE_MAX_ENTRIES); it was not scanned.`,
      );
    const base = segments.pop()!;
    const dir = this.directory(segments);
    if (dir === null) {
      this.tally.skipped += 1;
      return void entry.resume();
    }
    if (base.startsWith(".wh.")) {
      entry.resume();
      this.tally.whiteouts += 1;
      if (base === ".wh..wh..opq") {
        for (const child of readdirSync(dir)) {
          const path = join(dir, child);
          if (!created.has(path)) rmSync(path, { recursive: true, force: true });
        }
      } else {
        const hidden = base.slice(".wh.".length);
        if (hidden && hidden !== "." && hidden !== "..") rmSync(join(dir, hidden), { recursive: true, force: true });
      }
      return;
    }
    const place = join(dir, base);
    const existing = lstatOrNull(place);
    if (existing && !(existing.isDirectory() && entry.type === "Directory"))
      rmSync(place, { recursive: true, force: true });
    created.add(place);
    switch (entry.type) {
      case "Directory":
        if (!existing?.isDirectory()) {
          mkdirSync(place, { mode: 0o755 });
          this.own(place);
        }
        return void entry.resume();
      case "File":
      case "OldFile":
      case "ContiguousFile":
        return this.file(entry, place, fail);
      case "SymbolicLink":
        entry.resume();
        return this.symlink(place, entry.linkpath ?? "");
      case "Link":
        entry.resume();
        return this.hardLink(place, entry.linkpath ?? "");
      default:
        this.tally.skipped += 1;
        return void entry.resume();
    }
  }

  private file(entry: ReadEntry, place: string, fail: (err: Error) => void): void {
    const mode = (entry.mode ?? 0o644) & 0o111 ? 0o755 : 0o644;
    const fd = openSync(place, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    this.own(place);
    let open = true;
    const close = () => {
      if (open) closeSync(fd);
      open = false;
    };
    entry.on("data", (chunk: Buffer) => {
      if (!open) return;
      this.tally.bytes += chunk.length;
      if (this.tally.bytes > this.limits.maxExpandedBytes) {
        close();
        return fail(
          new JobInputError(
            `The image's layers expand past SCAN_IMAGE_MAX_EXPANDED_BYTES (${this.limits.maxExpandedBytes} bytes); it was not scanned.`,
          ),
        );
      }
      writeSync(fd, chunk);
    });
    entry.on("end", close);
  }

  private symlink(place: string, target: string): void {
    let written = target;
    if (posix.isAbsolute(target)) {
      // The image's / is the tree's root: point there, never at the runner's file system.
      const rooted = join(this.root, posix.normalize(target));
      written = relative(dirname(place), rooted) || ".";
    } else if (!inside(this.root, resolve(dirname(place), target))) {
      this.tally.skipped += 1;
      return;
    }
    symlinkSync(written, place);
    this.own(place);
  }

  private hardLink(place: string, target: string): void {
    const segments = target.split("/").filter((s) => s !== "" && s !== ".");
    if (segments.includes("..") || segments.length === 0) {
      this.tally.skipped += 1;
      return;
    }
    const source = join(this.root, ...segments);
    // Every parent must be a real directory and the target a regular file: a link never reaches outside.
    const parents = this.directoryExists(segments.slice(0, -1));
    const found = parents ? lstatOrNull(source) : null;
    if (!found?.isFile()) {
      this.tally.skipped += 1;
      return;
    }
    linkSync(source, place);
  }

  private directoryExists(segments: string[]): boolean {
    let dir = this.root;
    for (const segment of segments) {
      dir = join(dir, segment);
      if (!lstatOrNull(dir)?.isDirectory()) return false;
    }
    return true;
  }
}

function lstatOrNull(path: string) {
  return lstatSync(path, { throwIfNoEntry: false }) ?? null;
}
