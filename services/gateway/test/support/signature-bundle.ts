// What the SBOM signing tests (key-based and keyless) do with a served signature bundle: extract it, read the cosign
// commands its VERIFY.md gives, and tell cosign's refusal.
import { mkdtemp, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "@jest/globals";
import { unzipSync } from "fflate";
import type { CosignRun } from "@sca/testkit";

export interface ExtractedBundle {
  /** The directory the zip was extracted to. */
  at: string;
  files: Record<string, Uint8Array>;
  /** VERIFY.md's text. */
  verifyMd: string;
}

/** The zip's files, extracted into a fresh directory under `parent`. */
export async function extractBundle(zip: Uint8Array, parent: string, prefix: string): Promise<ExtractedBundle> {
  const files = unzipSync(zip);
  const at = await mkdtemp(join(parent, `${prefix}-`));
  for (const [name, content] of Object.entries(files)) await writeFile(join(at, name), content);
  return { at, files, verifyMd: Buffer.from(files["VERIFY.md"] ?? []).toString("utf8") };
}

/** The commands of VERIFY.md's sh block, each as cosign's arguments. */
export function verifyCommands(verifyMd: string): string[][] {
  const block = /```sh\n([\s\S]*?)```/.exec(verifyMd)?.[1] ?? "";
  return block
    .split("\n")
    .filter((l) => l.startsWith("cosign "))
    .map((l) => l.split(" ").slice(1));
}

/** cosign said no: a failing exit and no "Verified OK". */
export function refused(run: CosignRun): void {
  expect(run.code).not.toBe(0);
  expect(run.output).not.toContain("Verified OK");
}
