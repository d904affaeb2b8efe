// The backups on disk: BACKUP_DIR/<name>/ holds manifest.json, database.dump and artefacts/<key>. A backup is
// written under a dot-named working directory and renamed into place whole, so a listing never shows a partial one;
// an archive to restore is unpacked under another dot-named directory, checked, and removed. Archives are made and
// unpacked by tar as a child process, streaming: no backup is ever held in memory.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, mkdir, readdir, readFile, rename, rm, statfs } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { MANIFEST_FILE, parseManifest, type BackupManifest } from "../domain/backup-manifest.ts";
import { parseBackupName } from "../domain/backup-name.ts";

export interface StoredBackup {
  manifest: BackupManifest;
  sizeBytes: number;
}

/** Hex SHA-256 and size of a file, read as a stream. */
export async function digestOf(path: string): Promise<{ sizeBytes: number; sha256: string }> {
  const hash = createHash("sha256");
  let sizeBytes = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    sizeBytes += chunk.length;
  }
  return { sizeBytes, sha256: hash.digest("hex") };
}

export class BackupDirectory {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  /** The directory of a backup; null for a string that is not a backup's name (never a path outside root). */
  pathOf(name: string): string | null {
    return parseBackupName(name) ? join(this.root, name) : null;
  }

  /** A fresh working directory for `label` (a backup's name or a task id). */
  async workingDir(label: string): Promise<string> {
    const dir = join(this.root, `.work-${label}`);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    return dir;
  }

  /** Moves a finished working directory into place as the backup `name`. */
  async commit(workingDir: string, name: string): Promise<void> {
    await rename(workingDir, join(this.root, name));
  }

  async discard(dir: string): Promise<void> {
    await rm(dir, { recursive: true, force: true });
  }

  /** Every complete backup, newest first; a directory whose manifest does not read is left out. */
  async list(): Promise<StoredBackup[]> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
    const found: StoredBackup[] = [];
    for (const name of names
      .filter((n) => parseBackupName(n))
      .sort()
      .reverse()) {
      const stored = await this.read(name);
      if (stored) found.push(stored);
    }
    return found.sort((a, b) => b.manifest.created_at.localeCompare(a.manifest.created_at));
  }

  async read(name: string): Promise<StoredBackup | null> {
    const dir = this.pathOf(name);
    if (!dir) return null;
    try {
      const text = await readFile(join(dir, MANIFEST_FILE), "utf8");
      const manifest = parseManifest(text);
      const sizeBytes = manifest.files.reduce((n, f) => n + f.size_bytes, Buffer.byteLength(text));
      return { manifest, sizeBytes };
    } catch {
      return null;
    }
  }

  /** True when the backup was there and is gone. */
  async remove(name: string): Promise<boolean> {
    const dir = this.pathOf(name);
    if (!dir || !(await this.read(name))) return false;
    // Renamed away first, so a listing never shows a half-deleted backup.
    const doomed = join(this.root, `.delete-${name}`);
    await rename(dir, doomed);
    await rm(doomed, { recursive: true, force: true });
    return true;
  }

  /** The backup as a gzip'd tar of its directory (top folder: its name), streamed from tar's output. */
  archive(name: string, signal?: AbortSignal): Readable {
    const child = spawn("tar", ["-czf", "-", "-C", this.root, "--", name], {
      stdio: ["ignore", "pipe", "ignore"],
      signal,
    });
    child.on("error", () => undefined);
    child.on("close", (code) => {
      if (code !== 0) child.stdout.destroy(new Error(`tar exited with ${code}`));
    });
    return child.stdout;
  }

  /**
   * Unpacks a gzip'd tar into `into`: regular files and directories only, never outside it, no owners or modes
   * kept. A damaged or truncated archive is an error (tar's own check of the gzip and tar framing).
   */
  async unpack(archive: Readable, into: string): Promise<void> {
    const child = spawn(
      "tar",
      ["-xzf", "-", "-C", into, "--no-same-owner", "--no-same-permissions", "--no-overwrite-dir"],
      { stdio: ["pipe", "ignore", "pipe"] },
    );
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
    const exited = new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", resolve);
    });
    const fed = pipeline(archive, child.stdin).catch((e: unknown) => e);
    const [code, feedError] = await Promise.all([exited, fed]);
    if (code !== 0)
      throw new ArchiveUnreadable(`the archive is not a complete tar.gz (${err.trim().split("\n")[0] ?? ""})`);
    if (feedError) throw new ArchiveUnreadable("the archive could not be read");
  }

  /** Bytes used by the backups, and the volume's space. */
  async usage(): Promise<{ backupBytes: number; totalBytes: number; freeBytes: number }> {
    await mkdir(this.root, { recursive: true });
    const s = await statfs(this.root);
    const backupBytes = (await this.list()).reduce((n, b) => n + b.sizeBytes, 0);
    return { backupBytes, totalBytes: s.blocks * s.bsize, freeBytes: s.bavail * s.bsize };
  }
}

export class ArchiveUnreadable extends Error {}

/**
 * Every file under `dir` ("/"-separated paths relative to it) with its size and SHA-256; anything but a regular
 * file or a directory (a link, a device) is refused.
 */
export async function filesUnder(
  dir: string,
  prefix = "",
): Promise<Map<string, { sizeBytes: number; sha256: string }>> {
  const found = new Map<string, { sizeBytes: number; sha256: string }>();
  for (const name of (await readdir(dir)).sort()) {
    const path = join(dir, name);
    const rel = prefix ? `${prefix}/${name}` : name;
    const s = await lstat(path);
    if (s.isDirectory()) for (const [k, v] of await filesUnder(path, rel)) found.set(k, v);
    else if (s.isFile()) found.set(rel, await digestOf(path));
    else throw new ArchiveUnreadable(`${rel} in the archive is neither a file nor a folder`);
  }
  return found;
}
