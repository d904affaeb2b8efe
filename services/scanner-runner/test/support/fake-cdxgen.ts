// A stand-in for cdxgen (CDXGEN_BIN names it) that a test writes to misbehave on purpose, run exactly as cdxgen is:
// node's permission model, the sandbox user, the scrubbed environment. Its directory must be readable and the
// SCAN_WORK_DIR searchable by the sandbox user the tools run as (docs/source-scans.md).
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface FakeCdxgen {
  /** CDXGEN_BIN */
  bin: string;
  /** SCAN_WORK_DIR: where the runner makes its workspaces. */
  workDir: string;
  remove(): Promise<void>;
}

/** Writes `script` (CommonJS) as the fake cdxgen, with a fresh SCAN_WORK_DIR beside it. */
export async function fakeCdxgen(script: string): Promise<FakeCdxgen> {
  const dir = await mkdtemp(join(tmpdir(), "sca-fake-cdxgen-"));
  const workDir = await mkdtemp(join(tmpdir(), "sca-work-"));
  await chmod(dir, 0o755);
  await chmod(workDir, 0o711);
  const bin = join(dir, "cdxgen.cjs");
  await writeFile(bin, script, { mode: 0o644 });
  return {
    bin,
    workDir,
    remove: async () => {
      await rm(dir, { recursive: true, force: true });
      await rm(workDir, { recursive: true, force: true });
    },
  };
}

/** Running (a zombie waiting for a reaper that is not ours does not count). */
export async function processRunning(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
