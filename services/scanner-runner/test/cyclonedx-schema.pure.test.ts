// Correctness against something we did not write: the official CycloneDX JSON schemas (shipped by
// @cyclonedx/cyclonedx-library, checked with its ajv-based strict validator) accept every CycloneDX JSON document
// of the shared set at the spec version the reader reports, and the generated benchmark document too.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import type { Spec } from "@cyclonedx/cyclonedx-library";
import { Validation } from "@cyclonedx/cyclonedx-library";
import { readSbom } from "../src/domain/sbom/read-sbom.ts";
import { generateCycloneDxBom } from "./support/cyclonedx-generator.ts";
import { sharedDir } from "./support/shared-dir.ts";

const cyclonedxDir = join(sharedDir(), "data", "sbom", "cyclonedx");
// ajv checks the schemas' uniqueItems by comparing every pair of components: seconds per document over ~500 KB.
// Those (juice-shop twice, keycloak, redis-commander) passed the same check once by hand; the suite keeps the
// smaller ones, which cover 1.2 and 1.4.
const SCHEMA_CHECK_MAX_BYTES = 400_000;
const jsonFiles = readdirSync(cyclonedxDir)
  .filter((name) => name.endsWith(".json") && statSync(join(cyclonedxDir, name)).size <= SCHEMA_CHECK_MAX_BYTES)
  .sort();

async function schemaErrors(text: string, version: string): Promise<unknown> {
  return new Validation.JsonStrictValidator(version as Spec.Version).validate(text);
}

describe("CycloneDX JSON against the official schemas", () => {
  it("the shared set has CycloneDX JSON documents to check", () => {
    expect(jsonFiles.length).toBeGreaterThanOrEqual(7);
  });

  it.each(jsonFiles)("%s is valid at the spec version the reader reports", async (name) => {
    const text = readFileSync(join(cyclonedxDir, name), "utf8");
    const { document } = readSbom(text);
    expect(document.format).toBe("cyclonedx-json");
    expect(await schemaErrors(text, document.specVersion)).toBeNull();
  });

  it("the generated benchmark document is valid CycloneDX 1.6, and a broken one is not", async () => {
    const bom = generateCycloneDxBom({ components: 200 });
    expect(await schemaErrors(JSON.stringify(bom), "1.6")).toBeNull();
    (bom.components as Array<Record<string, unknown>>)[0]!.type = "not-a-component-type";
    expect(await schemaErrors(JSON.stringify(bom), "1.6")).not.toBeNull();
  });
});
