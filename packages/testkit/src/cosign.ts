// cosign, the verifier we did not write that the signing tests run exactly as a bundle's VERIFY.md tells a user to
// (docs/signing.md): the binary scripts/setup/cosign.sh builds, run in a directory of extracted files.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pinnedVersion, toolsDir } from "./tools.ts";

/** .tools/cosign-<COSIGN_VERSION>/cosign. */
export function cosignBinary(): string {
  const bin = join(toolsDir(), `cosign-${pinnedVersion("COSIGN_VERSION")}`, "cosign");
  if (!existsSync(bin)) throw new Error(`no cosign at ${bin}: run bash scripts/setup/cosign.sh`);
  return bin;
}

export interface CosignRun {
  code: number;
  output: string;
}

/** Runs `cosign <args>` in `cwd` (offline: key-based verification needs no network); never throws on a failure. */
export function runCosign(args: readonly string[], cwd: string): Promise<CosignRun> {
  return new Promise((done) => {
    execFile(cosignBinary(), [...args], { cwd, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      done({ code, output: `${stdout}${stderr}` });
    });
  });
}
