// The reader at the scale the issue names: a generated 50,000-component CycloneDX document with ~150,000 edges
// reads whole (no stack overflow on deep graphs, every component placed). Its speed is a benchmark's business
// (figures in docs/sbom-reader.md), never a timed test.
import { describe, expect, it } from "@jest/globals";
import { readSbom } from "../src/domain/sbom/read-sbom.ts";
import { generateCycloneDxBom } from "./support/cyclonedx-generator.ts";

describe("SBOM reader at scale", () => {
  it("reads 50,000 components and their graph", () => {
    const text = JSON.stringify(generateCycloneDxBom({ components: 50_000 }));
    const inventory = readSbom(text);
    expect(inventory.components).toHaveLength(50_000);
    expect(inventory.graph).toMatchObject({ rooted: true, directCount: 50 });
    expect(inventory.graph.edgeCount).toBeGreaterThan(100_000);
    expect(inventory.components.filter((c) => c.depth === null)).toHaveLength(0);
    expect(inventory.components[0]).toMatchObject({
      purl: "pkg:npm/%40scope0/package-0@1.0.0",
      declaredLicense: "MIT",
      direct: true,
      depth: 1,
    });
  }, 60_000);
});
