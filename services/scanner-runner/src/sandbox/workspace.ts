// A job's private working directory: made fresh under SCAN_WORK_DIR (mode 0700, owned by the sandbox user when the
// runner is root), holding the tool's home, temp directory, the source tree and the tools' output, and removed
// whole afterwards whatever happened. The environment tools get is built here from an allow-list: nothing of the
// runner's own environment reaches them.
import { chown, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface Workspace {
  root: string;
  home: string;
  tmp: string;
  /** The source tree scanned. */
  tree: string;
  /** Where tools write what the runner reads back (the SBOM). */
  out: string;
  /** The user tools run as, when the runner is root. */
  runAs?: { uid: number; gid: number };
  remove(): Promise<void>;
}

export async function openWorkspace(baseDir: string, sandboxUid: number): Promise<Workspace> {
  const base = baseDir || tmpdir();
  await mkdir(base, { recursive: true });
  const root = await mkdtemp(join(base, "sca-scan-"));
  const runAs = process.getuid?.() === 0 ? { uid: sandboxUid, gid: sandboxUid } : undefined;
  const dirs = { home: join(root, "home"), tmp: join(root, "tmp"), tree: join(root, "tree"), out: join(root, "out") };
  for (const dir of [root, ...Object.values(dirs)]) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (runAs) await chown(dir, runAs.uid, runAs.gid);
  }
  return { root, ...dirs, runAs, remove: () => rm(root, { recursive: true, force: true, maxRetries: 3 }) };
}

/** The directories searched for programs: node's own first (the tools are node programs), then the system's. */
const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * The whole environment of a tool: PATH, HOME, TMPDIR and the locale, plus `extra` (the tool's own settings).
 * An allow-list, so a key added to the runner's environment later never leaks into a build script.
 */
export function sandboxEnv(ws: Workspace, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${dirname(process.execPath)}:${SYSTEM_PATH}`,
    HOME: ws.home,
    TMPDIR: ws.tmp,
    LANG: "C.UTF-8",
    ...extra,
  };
}
