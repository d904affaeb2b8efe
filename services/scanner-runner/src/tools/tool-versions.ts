// The installed scanner tools' versions, for admin's health panel (docs/operations.md, "Health and disk panels"):
// cdxgen's from the package.json it was installed with (no process started), scancode's from `scancode --version`
// (python loads for seconds, so it is asked once per command, in the background: scannerOf). A tool that cannot
// be found or does not answer is reported with why, and asked again next time.
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { within } from "@sca/runtime/within";
import { cdxgenEntry } from "./cdxgen.ts";
import { scancodeCommand, scannerOf } from "./scancode.ts";

export interface ToolVersion {
  name: "cdxgen" | "scancode";
  version: string;
  error: string;
}

/** How long a panel read waits for a version still being asked. */
const WAIT_MS = 1_500;

const message = (err: unknown) => String((err as Error)?.message ?? err).slice(0, 300);

async function cdxgenVersion(bin: string): Promise<string> {
  // The entry sits under the package's bin/; its package.json is the nearest one naming @cyclonedx/cdxgen.
  for (let dir = dirname(cdxgenEntry(bin)); dir !== dirname(dir); dir = dirname(dir)) {
    const text = await readFile(join(dir, "package.json"), "utf8").catch(() => null);
    if (!text) continue;
    const pkg = JSON.parse(text) as { name?: string; version?: string };
    if (pkg.name === "@cyclonedx/cdxgen" && pkg.version) return pkg.version;
  }
  throw new Error("cdxgen's package.json was not found beside its entry");
}

async function scancodeVersion(bin: string): Promise<string> {
  const scanner = await scannerOf(scancodeCommand(bin));
  const version = /^scancode-(\S+)/.exec(scanner)?.[1];
  if (!version) throw new Error("scancode --version named no version");
  return version;
}

async function told(name: ToolVersion["name"], ask: () => Promise<string>): Promise<ToolVersion> {
  try {
    return { name, version: await within(ask(), WAIT_MS, "its version not told yet"), error: "" };
  } catch (err) {
    return { name, version: "", error: message(err) };
  }
}

/** The tools' versions under CDXGEN_BIN and SCANCODE_BIN (empty: the PATH's). */
export function scannerToolVersions(bins: { cdxgen: string; scancode: string }): Promise<ToolVersion[]> {
  return Promise.all([
    told("cdxgen", () => cdxgenVersion(bins.cdxgen)),
    told("scancode", () => scancodeVersion(bins.scancode)),
  ]);
}
