// The JSON reader reads a document a piece at a time: it must find the same inventory as a whole-document read,
// whatever order the top-level fields come in, and refuse exactly the documents JSON.parse refuses.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { readSbom } from "../src/domain/sbom/read-sbom.ts";
import { SbomReadError } from "../src/domain/sbom/errors.ts";
import type { SbomInventory } from "../src/domain/sbom/inventory.ts";
import { sharedDir } from "./support/shared-dir.ts";

const sbomDir = join(sharedDir(), "data", "sbom");
const jsonFiles = ["cyclonedx", "spdx"].flatMap((dir) =>
  readdirSync(join(sbomDir, dir))
    .filter((name) => name.endsWith(".json"))
    .map((name) => join(dir, name)),
);

function outcome(input: string): { code: string } | { inventory: SbomInventory } {
  try {
    return { inventory: readSbom(input) };
  } catch (error) {
    expect(error).toBeInstanceOf(SbomReadError);
    return { code: (error as SbomReadError).code };
  }
}

/** The same document with its top-level fields in reverse order (the big arrays before the header). */
function reversed(doc: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).reverse());
}

describe("streaming JSON reader", () => {
  it.each(jsonFiles)("%s reads the same with the header after the arrays, compact or indented", (path) => {
    const text = readFileSync(join(sbomDir, path), "utf8");
    const doc = JSON.parse(text) as Record<string, unknown>;
    const expected = outcome(text);
    expect(outcome(JSON.stringify(reversed(doc)))).toEqual(expected);
    expect(outcome(JSON.stringify(doc, null, 1))).toEqual(expected);
  });

  it("a lone object where the components list belongs is a list of one", () => {
    const inventory = readSbom(
      JSON.stringify({
        bomFormat: "CycloneDX",
        specVersion: "1.5",
        components: { type: "library", name: "a", version: "1", purl: "pkg:npm/a@1" },
      }),
    );
    expect(inventory.components.map((c) => c.purl)).toEqual(["pkg:npm/a@1"]);
  });

  it("an SPDX relationship listed before the file it names is still not graph", () => {
    const doc = {
      spdxVersion: "SPDX-2.3",
      SPDXID: "SPDXRef-DOCUMENT",
      relationships: [
        { spdxElementId: "SPDXRef-a", relatedSpdxElement: "SPDXRef-file", relationshipType: "CONTAINS" },
        { spdxElementId: "SPDXRef-a", relatedSpdxElement: "SPDXRef-b", relationshipType: "DEPENDS_ON" },
        { spdxElementId: "SPDXRef-DOCUMENT", relatedSpdxElement: "SPDXRef-a", relationshipType: "DESCRIBES" },
      ],
      packages: [
        { SPDXID: "SPDXRef-a", name: "a", versionInfo: "1" },
        { SPDXID: "SPDXRef-b", name: "b", versionInfo: "2" },
      ],
      files: [{ SPDXID: "SPDXRef-file", fileName: "./x" }],
    };
    const inventory = readSbom(JSON.stringify(doc));
    expect(inventory.document.primaryComponent?.name).toBe("a");
    expect(inventory.components.map((c) => [c.name, c.direct])).toEqual([["b", true]]);
    expect(inventory.graph.edgeCount).toBe(1);
    expect(inventory.warnings.filter((w) => w.code === "unknown_dependency_ref")).toEqual([]);
  });

  it("refuses exactly what JSON.parse refuses: every truncation and single-byte damage of a real document", () => {
    const text = JSON.stringify(JSON.parse(readFileSync(join(sbomDir, "cyclonedx/ascii-boxes.cdx-1.4.json"), "utf8")));
    const small = text.slice(0, 1500).replace(/,"[^"]*":?[^,]*$/, "") + "}]}";
    const damaged: string[] = [];
    for (let i = 1; i < text.length; i += 97) damaged.push(text.slice(0, i));
    // From the second byte: a document that does not start with { or [ is not read as JSON at all.
    for (let i = 1; i < small.length; i += 1) {
      damaged.push(small.slice(0, i) + small.slice(i + 1));
      for (const insert of ['"', "]", "}", ",", "x", "\\"]) damaged.push(small.slice(0, i) + insert + small.slice(i));
    }
    damaged.push(`${text} {}`, `${text},`, "{", '{"a"}', '{"a":}', '{"a":1,}', '{,"a":1}', '{"a":[1,]}', '{"a" 1}');
    let refused = 0;
    for (const input of damaged) {
      let parses = true;
      try {
        JSON.parse(input);
      } catch {
        parses = false;
      }
      const result = outcome(input);
      if (parses) expect(result).not.toEqual({ code: "sbom_malformed_json" });
      else {
        expect([input.slice(0, 60), result]).toEqual([input.slice(0, 60), { code: "sbom_malformed_json" }]);
        refused += 1;
      }
    }
    expect(refused).toBeGreaterThan(damaged.length / 2);
  });

  it("names the position of the damage as JSON.parse does", () => {
    const doc = '{"bomFormat":"CycloneDX","specVersion":"1.5","components":[{"name":"a"},{"name":"b",}]}';
    let where = "";
    try {
      JSON.parse(doc);
    } catch (error) {
      where = /position \d+/.exec((error as Error).message)![0];
    }
    expect(where).toMatch(/position \d+/);
    expect(() => readSbom(doc)).toThrow(`The JSON document is malformed or truncated (${where}).`);
  });
});
