// The fingerprint stage's pure rules (docs/fingerprint.md): the knowledge base's answer read for what was asked,
// known files grouped into vendored packages, and those packages as inventory components.
import { describe, expect, it } from "@jest/globals";
import { addVendoredComponents, findingsOf, knownFilesOf } from "../src/domain/fingerprint/known-files.ts";
import { COMPONENT_SOURCE_PROPERTY } from "../src/domain/sbom/inventory.ts";
import { readSbom } from "../src/domain/sbom/read-sbom.ts";

const A = "swh:1:cnt:" + "a".repeat(40);
const B = "swh:1:cnt:" + "b".repeat(40);
const C = "swh:1:cnt:" + "c".repeat(40);
const D = "swh:1:cnt:" + "d".repeat(40);

describe("the knowledge base's answer", () => {
  it("keeps known entries of SWHIDs asked, with a purl only when it is one", () => {
    const known = knownFilesOf(
      {
        [A]: { known: true, purl: "pkg:npm/lodash@4.17.21", license: "MIT" },
        [B]: { known: true },
        [C]: { known: false, purl: "pkg:npm/x@1" },
        [D]: { known: true, purl: "not a purl" },
        "swh:1:cnt:unasked": { known: true, purl: "pkg:npm/y@1" },
      },
      [A, B, C, D],
    );
    expect([...known.keys()]).toEqual([A, B, D]);
    expect(known.get(A)).toEqual({
      known: true,
      purl: "pkg:npm/lodash@4.17.21",
      name: null,
      version: null,
      license: "MIT",
    });
    expect(known.get(D)!.purl).toBeNull();
    expect(knownFilesOf("not an object", [A]).size).toBe(0);
  });
});

describe("vendored components", () => {
  const files = [
    { path: "vendor/lodash/lodash.js", swhid: A },
    { path: "vendor/lodash/lodash.min.js", swhid: A },
    { path: "third_party/notice.txt", swhid: B },
    { path: "src/app.js", swhid: C },
    { path: "vendor/left-pad.js", swhid: D },
  ];
  const known = knownFilesOf(
    {
      [A]: { known: true, purl: "pkg:npm/lodash@4.17.21", license: "MIT" },
      [B]: { known: true },
      [D]: { known: true, purl: "pkg:npm/left-pad@1.3.0", name: "left-pad", version: "1.3.0" },
    },
    [A, B, C, D],
  );

  it("groups known files by purl; the rest are named", () => {
    const findings = findingsOf(files, known);
    expect(findings.vendored.map((v) => [v.purl, v.paths])).toEqual([
      ["pkg:npm/lodash@4.17.21", ["vendor/lodash/lodash.js", "vendor/lodash/lodash.min.js"]],
      ["pkg:npm/left-pad@1.3.0", ["vendor/left-pad.js"]],
    ]);
    expect(findings.knownWithoutPurl).toEqual(["third_party/notice.txt"]);
  });

  it("adds one component per purl the SBOM does not already hold, marked as found by fingerprint", () => {
    const inventory = readSbom(
      Buffer.from(
        JSON.stringify({
          bomFormat: "CycloneDX",
          specVersion: "1.5",
          components: [{ type: "library", name: "left-pad", version: "1.3.0", purl: "pkg:npm/left-pad@1.3.0" }],
        }),
      ),
    );
    expect(addVendoredComponents(inventory, findingsOf(files, known))).toBe(1);
    const lodash = inventory.components.find((c) => c.key === "pkg:npm/lodash@4.17.21")!;
    expect(lodash).toMatchObject({
      name: "lodash",
      version: "4.17.21",
      purl: "pkg:npm/lodash@4.17.21",
      declaredLicense: "MIT",
      licenseIds: ["MIT"],
      scope: null,
    });
    expect(JSON.parse(lodash.rawJson)).toEqual({
      purl: "pkg:npm/lodash@4.17.21",
      properties: [{ name: COMPONENT_SOURCE_PROPERTY, value: "fingerprint" }],
      evidence: { occurrences: [{ location: "vendor/lodash/lodash.js" }, { location: "vendor/lodash/lodash.min.js" }] },
      fileCount: 2,
    });
    expect(inventory.components.filter((c) => c.name === "left-pad")).toHaveLength(1);
  });
});
