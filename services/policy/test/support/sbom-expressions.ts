// The license expressions the real SBOMs of ../shared/data/sbom carry, read from the documents themselves:
// CycloneDX JSON and XML (`expression`, `license.id`), SPDX 2.x JSON and tag-value (declared and concluded),
// SPDX 3.0 JSON-LD (`simplelicensing_licenseExpression`).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sharedDir } from "@sca/testkit";

const JSON_KEYS = new Set(["expression", "licenseConcluded", "licenseDeclared", "simplelicensing_licenseExpression"]);

function walk(node: unknown, found: Set<string>): void {
  if (Array.isArray(node)) for (const item of node) walk(item, found);
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (typeof value === "string" && JSON_KEYS.has(key)) found.add(value);
      else if (
        key === "license" &&
        value &&
        typeof value === "object" &&
        typeof (value as { id?: unknown }).id === "string"
      )
        found.add((value as { id: string }).id);
      else walk(value, found);
    }
  }
}

function fromText(text: string, found: Set<string>): void {
  for (const m of text.matchAll(/<expression>([^<]*)<\/expression>/g)) found.add(m[1]!);
  for (const m of text.matchAll(/<license>\s*<id>([^<]*)<\/id>/g)) found.add(m[1]!);
  for (const m of text.matchAll(/^(?:PackageLicenseConcluded|PackageLicenseDeclared|LicenseConcluded): (.*)$/gm))
    found.add(m[1]!);
}

/** Every distinct expression of every SBOM, trimmed, without NONE and NOASSERTION. */
export function sbomLicenseExpressions(): string[] {
  const root = join(sharedDir(), "data", "sbom");
  const found = new Set<string>();
  for (const folder of ["cyclonedx", "spdx"]) {
    for (const file of readdirSync(join(root, folder))) {
      const text = readFileSync(join(root, folder, file), "utf8");
      if (file.endsWith(".json")) walk(JSON.parse(text), found);
      else fromText(text, found);
    }
  }
  return [...found]
    .map((e) => e.trim())
    .filter((e) => e && !/^(NONE|NOASSERTION)$/.test(e))
    .sort();
}
