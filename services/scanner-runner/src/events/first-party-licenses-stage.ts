// The scancode stage of a source scan (docs/scancode.md): the licenses written in the tree's own files, each
// detection with its path and match score, recorded by projects next to the declared licenses of the components.
// Results are reused by content: every regular file is hashed (SHA-256), contents scancode already read come from
// scancode_file_results, and only the others are linked into a directory of their own that scancode reads; an
// unchanged tree does not run scancode at all. Bounded: SCANCODE_MAX_FILES (above it the stage is skipped),
// SCANCODE_TIMEOUT_SECONDS (the scan keeps the declared licenses only), SCANCODE_MAX_RESULT_BYTES (the output is
// dropped), SCANCODE_MAX_DETECTIONS (the first ones by path are kept). The stage never fails the scan: its outcome is
// a log line and the stage status projects keeps.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { copyFile, link, mkdir, opendir, rm } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { pipeline } from "node:stream/promises";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ScanJob } from "@sca/proto/sca/events/v1/scans_pb.ts";
import type { FileLicenses } from "../clients/file-licenses.ts";
import type { FileLicenseMatch } from "../domain/scancode/file-detections.ts";
import type { ToolLine } from "../fetch/git-clone.ts";
import type { Workspace } from "../sandbox/workspace.ts";
import { cachedFileMatches, rememberFileMatches } from "../store/scancode-cache.ts";
import {
  runScancode,
  scancodeCommand,
  scannedFiles,
  scannerKnown,
  scannerOf,
  type ScancodeOptions,
} from "../tools/scancode.ts";
import type { AttemptReporter } from "./attempt-reporter.ts";
import { ToolLog } from "./tool-log.ts";

export interface FirstPartyLicenseDeps {
  scancode: ScancodeOptions;
  /** SCANCODE_MAX_FILES */
  maxFiles: number;
  /** SCANCODE_MAX_DETECTIONS */
  maxDetections: number;
  fileLicenses: FileLicenses;
}

export type StageStatus = "completed" | "timed_out" | "skipped" | "dropped" | "failed";

export interface FileDetection extends FileLicenseMatch {
  path: string;
}

export interface TreeLicenses {
  status: StageStatus;
  /** The sentence the scan's log and projects' stage record carry. */
  message: string;
  fileCount: number;
  /** Files scancode read in this scan; the others' contents came from the cache. */
  scannedFileCount: number;
  truncated: boolean;
  detections: FileDetection[];
}

/** The stage's step and stage name in progress and log frames (concepts.md, the WebSocket stage vocabulary). */
export const SCANCODE_STAGE = "scancode";

/**
 * The stage's work over the workspace's tree, begun beside cdxgen (both only read the tree; docs/scancode.md): the
 * listing, hashing and cache lookup at once, scancode itself (a cold tree) once `heavyAfter` settles, so it does not
 * take cdxgen's core; its log lines are held until the stage is reported. The workspace stays until `done` settles; it never rejects.
 */
export interface TreeLicensesRun {
  done: Promise<{ found: TreeLicenses } | { err: unknown }>;
  log: ToolLog;
}

export function startTreeLicenses(
  orm: MikroORM,
  deps: FirstPartyLicenseDeps,
  ws: Workspace,
  reporter: AttemptReporter,
  signal: AbortSignal,
  heavyAfter: Promise<unknown>,
): TreeLicensesRun {
  const log = new ToolLog(reporter, SCANCODE_STAGE, { held: true });
  const done = treeLicenses(orm, deps, ws, log.line, signal, heavyAfter).then(
    (found) => ({ found }),
    (err: unknown) => ({ err }),
  );
  return { done, log };
}

/** The stage reported: its lines written as they come, its outcome awaited and recorded by projects. */
export async function recordFirstPartyLicenses(
  job: ScanJob,
  deps: FirstPartyLicenseDeps,
  run: TreeLicensesRun,
  reporter: AttemptReporter,
  signal: AbortSignal,
): Promise<TreeLicenses> {
  run.log.release();
  const outcome = await run.done;
  await run.log.close();
  if ("err" in outcome) throw outcome.err;
  const found = outcome.found;
  const recorded = await deps.fileLicenses.record(
    {
      projectId: job.projectId,
      scanId: job.scanId,
      stage: {
        status: found.status,
        message: found.message,
        fileCount: found.fileCount,
        scannedFileCount: found.scannedFileCount,
        truncated: found.truncated,
      },
      detections: found.detections,
    },
    signal,
  );
  await reporter.log(SCANCODE_STAGE, found.status === "completed" ? "stdout" : "stderr", [
    found.message,
    `Recorded ${recorded} first-party license detections${found.truncated ? ` (SCANCODE_MAX_DETECTIONS: ${deps.maxDetections}; more were found)` : ""}.`,
  ]);
  return found;
}

/** The tree's files and their detections, scancode run over the contents not in the cache. */
export async function treeLicenses(
  orm: MikroORM,
  deps: Omit<FirstPartyLicenseDeps, "fileLicenses">,
  ws: Workspace,
  onLine: ToolLine,
  signal: AbortSignal,
  /** What scancode's own run waits for (cdxgen's end, beside which the listing, hashing and cache lookup run). */
  heavyAfter: Promise<unknown> = Promise.resolve(),
): Promise<TreeLicenses> {
  const outcome = (status: StageStatus, message: string, fileCount: number, scannedFileCount = 0): TreeLicenses => ({
    status,
    message,
    fileCount,
    scannedFileCount,
    truncated: false,
    detections: [],
  });
  if (deps.maxFiles === 0)
    return outcome(
      "skipped",
      "The scancode stage is off (SCANCODE_MAX_FILES is 0); the scan keeps the declared licenses only.",
      0,
    );
  const paths = await regularFiles(ws.tree, deps.maxFiles);
  if (paths === "too-many")
    return outcome(
      "skipped",
      `The tree has more than SCANCODE_MAX_FILES (${deps.maxFiles}) files; the scancode stage was skipped and the ` +
        "scan keeps the declared licenses only.",
      deps.maxFiles + 1,
    );

  const hashOf = new Map<string, string>();
  for (const path of paths) {
    signal.throwIfAborted();
    hashOf.set(path, await sha256Of(join(ws.tree, path)));
  }
  let scanner: string;
  try {
    const command = scancodeCommand(deps.scancode.bin);
    // Starting python (its version, the first time) is heavy: it waits for `heavyAfter`.
    if (!scannerKnown(command)) await heavyAfter;
    signal.throwIfAborted();
    scanner = await scannerOf(command);
  } catch (err) {
    signal.throwIfAborted();
    return outcome("failed", `scancode could not be started (${(err as Error).message}); declared licenses only.`, 0);
  }
  const hashes = [...new Set(hashOf.values())];
  const known = await cachedFileMatches(orm.em.fork(), scanner, hashes);

  // One path per content scancode has not read yet, linked (or copied) into a directory of its own.
  const toScan = new Map<string, string>();
  for (const [path, sha256] of hashOf) if (!known.has(sha256) && !toScan.has(sha256)) toScan.set(sha256, path);
  if (toScan.size === 0) {
    onLine("stdout", `All ${paths.length} files' contents were scanned before; scancode was not run (content cache).`);
  } else {
    onLine(
      "stdout",
      `${paths.length} files, ${hashes.length} distinct contents, ${known.size} from the cache; scancode reads ` +
        `${toScan.size}.`,
    );
    await heavyAfter;
    signal.throwIfAborted();
    // Fresh each run: scancode reads everything in it (a workspace serves one scan, but the stage may run twice).
    const input = join(ws.root, "scancode-in");
    await rm(input, { recursive: true, force: true });
    const hashOfInput = new Map<string, string>();
    for (const [sha256, path] of toScan) {
      const target = join(input, path);
      await mkdir(dirname(target), { recursive: true });
      await link(join(ws.tree, path), target).catch(() => copyFile(join(ws.tree, path), target));
      hashOfInput.set(path.split(sep).join("/"), sha256);
    }
    const run = await runScancode(ws, input, deps.scancode, onLine, signal).finally(() =>
      rm(input, { recursive: true, force: true }),
    );
    const seconds = Math.round(deps.scancode.timeoutMs / 1000);
    if (run.kind === "timed-out")
      return outcome(
        "timed_out",
        `scancode did not finish within SCANCODE_TIMEOUT_SECONDS (${seconds} s); it was stopped and the scan keeps ` +
          "the declared licenses only.",
        paths.length,
        toScan.size,
      );
    if (run.kind === "too-large")
      return outcome(
        "dropped",
        `scancode's output passed SCANCODE_MAX_RESULT_BYTES (${deps.scancode.resultMaxBytes} bytes); the stage's ` +
          "result was dropped and the scan keeps the declared licenses only.",
        paths.length,
        toScan.size,
      );
    if (run.kind === "failed")
      return outcome(
        "failed",
        `scancode failed (${run.reason}); the scan keeps the declared licenses only (the log has its words).`,
        paths.length,
        toScan.size,
      );
    const fresh = new Map<string, FileLicenseMatch[]>();
    for await (const file of scannedFiles(run.output)) {
      const sha256 = hashOfInput.get(file.path);
      if (!sha256) continue;
      known.set(sha256, file.matches);
      // A file scancode erred on is not cached: the next scan tries it again.
      if (!file.failed) fresh.set(sha256, file.matches);
    }
    await rememberFileMatches(orm.em.fork(), scanner, fresh);
  }

  const detections: FileDetection[] = [];
  let truncated = false;
  for (const path of [...hashOf.keys()].sort()) {
    const matches = [...(known.get(hashOf.get(path)!) ?? [])].sort(
      (a, b) => a.startLine - b.startLine || a.license.localeCompare(b.license),
    );
    for (const m of matches) {
      if (detections.length >= deps.maxDetections) {
        truncated = true;
        break;
      }
      detections.push({ path: path.split(sep).join("/"), ...m });
    }
    if (truncated) break;
  }
  return {
    status: "completed",
    message:
      `scancode: ${detections.length} first-party license detections in ` +
      `${new Set(detections.map((d) => d.path)).size} of ${paths.length} files (${toScan.size} files read, the ` +
      "others from the content cache).",
    fileCount: paths.length,
    scannedFileCount: toScan.size,
    truncated,
    detections,
  };
}

/** The tree's regular files (relative paths; links and the .git directory left out), or too-many past `max`. */
async function regularFiles(root: string, max: number): Promise<string[] | "too-many"> {
  const files: string[] = [];
  const dirs = [root];
  while (dirs.length > 0) {
    const dir = dirs.pop()!;
    for await (const entry of await opendir(dir)) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== ".git") dirs.push(full);
      } else if (entry.isFile()) {
        if (files.length >= max) return "too-many";
        files.push(relative(root, full));
      }
    }
  }
  return files;
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}
