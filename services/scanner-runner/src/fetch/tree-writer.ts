// How an uploaded source archive's entries become the scan's tree, whether a .zip (source-archive.ts) or a .tar.gz
// (source-tarball.ts): directories and files owned by the user tools run as (whatever the runner's umask, as a
// clone's are), the bytes counted against SOURCE_ARCHIVE_MAX_EXPANDED_BYTES as they are written, and links made last,
// so no file is ever written through one; each must stay inside the tree, as written and as resolved.
import { createWriteStream } from "node:fs";
import { chown, lchown, link, lstat, mkdir, symlink } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { escapingLink } from "../sandbox/tree-checks.ts";
import type { Workspace } from "../sandbox/workspace.ts";
import { escapingLinkError, expandedTooLarge, placeOf, type ArchiveLimits } from "./archive-entries.ts";
import { chunkCheck } from "./stream-checks.ts";

interface PendingLink {
  place: string;
  target: string;
  /** The entry's name, for the refusal. */
  name: string;
  hard: boolean;
}

export class TreeWriter {
  private readonly ws: Workspace;
  private readonly limits: ArchiveLimits;
  private readonly links: PendingLink[] = [];
  /** Bytes written so far. */
  written = 0;

  constructor(ws: Workspace, limits: ArchiveLimits) {
    this.ws = ws;
    this.limits = limits;
  }

  private async own(path: string): Promise<void> {
    if (this.ws.runAs) await chown(path, this.ws.runAs.uid, this.ws.runAs.gid);
  }

  /** The directory and those above it that it makes, each owned. */
  async directory(dir: string): Promise<void> {
    const first = await mkdir(dir, { recursive: true, mode: 0o755 });
    if (!first) return;
    for (let d = dir; d.length >= first.length; d = dirname(d)) await this.own(d);
  }

  /**
   * A regular file from the stream `open` gives; `exclusive`: an existing file refuses it (a name the archive repeats).
   * The stream is opened only once its directory exists and is piped at once: a zip entry's stream inflates as soon
   * as it is open, and its errors (an entry longer than its header says) need a listener before the next tick.
   */
  async file(
    place: string,
    open: () => Readable | Promise<Readable>,
    mode: number,
    signal: AbortSignal,
    exclusive = false,
  ): Promise<void> {
    await this.directory(dirname(place));
    const data = await open();
    const counted = chunkCheck((chunk) => {
      this.written += chunk.length;
      return this.written > this.limits.maxExpandedBytes ? expandedTooLarge(this.limits) : undefined;
    });
    await pipeline(data, counted, createWriteStream(place, { mode, flags: exclusive ? "wx" : "w" }), { signal });
    await this.own(place);
  }

  /** A symbolic link (`target` as the archive names it) or a hard link (to a file of the tree), made by finish(). */
  link(place: string, target: string, name: string, hard = false): void {
    this.links.push({ place, target, name, hard });
  }

  /** Makes the links, then checks no link leads out of the tree through others. */
  async finish(): Promise<void> {
    const root = this.ws.tree;
    for (const l of this.links) {
      if (l.hard) {
        const source = placeOf(root, l.target);
        const found = await lstat(source).catch(() => null);
        if (!found?.isFile()) throw escapingLinkError(l.name);
        await link(source, l.place);
        continue;
      }
      if (isAbsolute(l.target)) throw escapingLinkError(l.name);
      if (relative(root, resolve(dirname(l.place), l.target)).startsWith("..")) throw escapingLinkError(l.name);
      await this.directory(dirname(l.place));
      await symlink(l.target, l.place);
      if (this.ws.runAs) await lchown(l.place, this.ws.runAs.uid, this.ws.runAs.gid);
    }
    const escaping = await escapingLink(root);
    if (escaping) throw escapingLinkError(escaping);
  }
}
