// The tools set-up installs under .tools/ (scripts/setup/, pinned in scripts/versions.sh), found at their pinned
// path rather than through PATH, so a stale link in .tools/bin never decides which tool a test runs.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)));

/** The .tools directory set-up installs into. */
export function toolsDir(): string {
  return join(ROOT, ".tools");
}

/** A version scripts/versions.sh pins. */
export function pinnedVersion(variable: string): string {
  return pinned(variable);
}

function pinned(variable: string): string {
  const version = new RegExp(`^${variable}=(\\S+)$`, "m").exec(
    readFileSync(join(ROOT, "scripts/versions.sh"), "utf8"),
  )?.[1];
  if (!version) throw new Error(`scripts/versions.sh pins no ${variable}`);
  return version;
}

/** The cdxgen command of scripts/setup/scancode.sh, for the scanner-runner's CDXGEN_BIN. */
export function cdxgenBin(): string {
  return join(ROOT, ".tools", `cdxgen-${pinned("CDXGEN_VERSION")}`, "node_modules", ".bin", "cdxgen");
}

/** The scancode command of scripts/setup/scancode.sh (its virtualenv), for the scanner-runner's SCANCODE_BIN. */
export function scancodeBin(): string {
  return join(ROOT, ".tools", `scancode-${pinned("SCANCODE_VERSION")}-pluggy16-system-python`, "bin", "scancode");
}
