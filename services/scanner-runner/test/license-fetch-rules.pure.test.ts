// The license lookup's pure rules (docs/license-fetch.md): where each registry states a release's license, how its
// recorded real answers read, how a fetched license lands on a component; and the scope filter's per-ecosystem
// refinements (docs/scanner-runner.md).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { licenseFillsOf, normalisedRegistryLicense } from "../src/domain/licenses/fetched-licenses.ts";
import { licenseReadingOf, licenseUrlsOf, pomUrlOf } from "../src/domain/licenses/registry-licenses.ts";
import { encodeInventoryArtefact, inventoryRecords } from "../src/domain/inventory-artefact.ts";
import { readSbom } from "../src/domain/sbom/read-sbom.ts";
import { createLicenseNormaliser } from "../src/domain/sbom/license-expression.ts";
import { refineScopes, scopeFilterEcosystemOf } from "../src/domain/sbom/scope-refinements.ts";

const recording = (path: string) => readFileSync(join(import.meta.dirname, "fixtures/registry-recordings", path));
const json = (doc: unknown) => Buffer.from(JSON.stringify(doc));

describe("where registries state licenses", () => {
  it("asks npm's and crates.io's package document, PyPI's release then project document, a Maven release's POM", () => {
    expect(licenseUrlsOf("npm", "http://r/", "@types/node", "20.1.0")).toEqual(["http://r/@types%2Fnode"]);
    expect(licenseUrlsOf("crates", "http://r", "serde", "1.0.0")).toEqual(["http://r/api/v1/crates/serde"]);
    expect(licenseUrlsOf("pypi", "http://r", "six", "1.16.0")).toEqual([
      "http://r/pypi/six/1.16.0/json",
      "http://r/pypi/six/json",
    ]);
    expect(licenseUrlsOf("maven", "http://r/maven2/", "commons-io:commons-io", "2.11.0")).toEqual([
      "http://r/maven2/commons-io/commons-io/2.11.0/commons-io-2.11.0.pom",
    ]);
    expect(pomUrlOf("http://r", { group: "org.apache", artifact: "apache", version: "23" })).toBe(
      "http://r/org/apache/apache/23/apache-23.pom",
    );
    // The Go module proxy, NuGet's flat container and RubyGems' latest.json state no license.
    expect(licenseUrlsOf("go", "http://r", "github.com/google/uuid", "v1.6.0")).toBeNull();
    expect(licenseUrlsOf("nuget", "http://r", "Newtonsoft.Json", "13.0.1")).toBeNull();
    expect(licenseUrlsOf("maven", "http://r", "no-artifact", "1.0")).toBeNull();
  });
});

describe("recorded registry answers", () => {
  it("npm: each release's own license, the scoped packument too", () => {
    const leftPad = recording("npm/left-pad");
    expect(licenseReadingOf("npm", leftPad, "1.3.0").license).toEqual({ texts: ["WTFPL"], kind: "expression" });
    expect(licenseReadingOf("npm", leftPad, "0.0.3").license).toEqual({ texts: ["BSD"], kind: "expression" });
    expect(licenseReadingOf("npm", recording("npm/@tootallnate%2fonce"), "2.0.0").license).toEqual({
      texts: ["MIT"],
      kind: "expression",
    });
  });

  it("npm: the legacy license object and list, else the document's own license", () => {
    const legacy = json({ versions: { "1.0.0": { licenses: [{ type: "MIT" }, { type: "Apache-2.0" }] } } });
    expect(licenseReadingOf("npm", legacy, "1.0.0").license).toEqual({
      texts: ["MIT", "Apache-2.0"],
      kind: "expression",
    });
    const object = json({ license: { type: "ISC" }, versions: {} });
    expect(licenseReadingOf("npm", object, "9.9.9").license).toEqual({ texts: ["ISC"], kind: "expression" });
  });

  it("PyPI: the license expression, else a short license, else the classifiers", () => {
    expect(licenseReadingOf("pypi", recording("pypi/pypi/six/json"), "1.16.0").license).toEqual({
      texts: ["MIT"],
      kind: "name",
    });
    const wholeText = json({
      info: {
        license: "Copyright (c) 2020\n\nPermission is hereby granted...",
        classifiers: ["License :: OSI Approved :: BSD License"],
      },
    });
    expect(licenseReadingOf("pypi", wholeText, "1").license).toEqual({ texts: ["BSD License"], kind: "name" });
    expect(licenseReadingOf("pypi", json({ info: { license_expression: "Apache-2.0 OR MIT" } }), "1").license).toEqual({
      texts: ["Apache-2.0 OR MIT"],
      kind: "expression",
    });
  });

  it("Maven: the POM's licenses, else its parent to ask", () => {
    expect(licenseReadingOf("maven", recording("maven2/junit/junit/4.13.2/junit-4.13.2.pom"), "")).toEqual({
      license: { texts: ["Eclipse Public License 1.0"], kind: "name" },
      parent: null,
    });
    expect(
      licenseReadingOf("maven", recording("maven2/commons-io/commons-io/2.11.0/commons-io-2.11.0.pom"), ""),
    ).toEqual({ license: null, parent: { group: "org.apache.commons", artifact: "commons-parent", version: "52" } });
    expect(licenseReadingOf("maven", recording("maven2/org/apache/apache/23/apache-23.pom"), "").license).toEqual({
      texts: ["Apache License, Version 2.0"],
      kind: "name",
    });
  });

  it("crates.io: the release's license, the old slash spelling read as a choice", () => {
    const doc = json({
      versions: [
        { num: "1.0.0", license: "MIT/Apache-2.0" },
        { num: "2.0.0", license: "MIT" },
      ],
    });
    expect(licenseReadingOf("crates", doc, "1.0.0").license).toEqual({
      texts: ["MIT OR Apache-2.0"],
      kind: "expression",
    });
    expect(licenseReadingOf("crates", doc, "3.0.0").license).toBeNull();
  });

  it("reads nothing from an unreadable document", () => {
    expect(licenseReadingOf("npm", Buffer.from("<html>"), "1")).toEqual({ license: null, parent: null });
  });
});

describe("a fetched license on a component", () => {
  const normaliser = createLicenseNormaliser();

  it("is normalised as the reader normalises, several names offered as a choice", () => {
    expect(normalisedRegistryLicense({ texts: ["Apache License, Version 2.0"], kind: "name" }, normaliser)).toEqual({
      expression: "Apache-2.0",
      ids: ["Apache-2.0"],
    });
    expect(normalisedRegistryLicense({ texts: ["MIT", "Apache-2.0"], kind: "expression" }, normaliser)).toEqual({
      expression: "MIT OR Apache-2.0",
      ids: ["Apache-2.0", "MIT"],
    });
    expect(normalisedRegistryLicense({ texts: ["NOASSERTION"], kind: "expression" }, normaliser)).toBeNull();
  });

  it("fills only components without one, counting them by registry", () => {
    const inventory = readSbom(
      json({
        bomFormat: "CycloneDX",
        specVersion: "1.5",
        components: [
          { type: "library", name: "a", version: "1", purl: "pkg:npm/a@1" },
          { type: "library", name: "b", version: "1", purl: "pkg:npm/b@1", licenses: [{ license: { id: "ISC" } }] },
          { type: "library", name: "c", version: "1", purl: "pkg:pypi/c@1" },
          { type: "library", name: "d", version: "1", purl: "pkg:maven/g/d@1" },
          { type: "library", name: "e", version: "1", purl: "pkg:npm/e@1" },
        ],
      }),
    );
    const wanting = inventory.components.map((component) => ({ component }));
    const answers = new Map([
      ["pkg:npm/a@1", { texts: ["MIT"], kind: "expression" as const, registry: "npm" }],
      ["pkg:npm/b@1", { texts: ["MIT"], kind: "expression" as const, registry: "npm" }],
      ["pkg:pypi/c@1", { texts: ["Apache License, Version 2.0"], kind: "name" as const, registry: "pypi" }],
      ["pkg:maven/g/d@1", null],
    ]);
    const fills = licenseFillsOf(wanting, answers, (w) => w.component.purl!, createLicenseNormaliser());
    // b declares ISC: never filled; d: the registry states none; e: not reached.
    expect(fills.licenses).toEqual([
      { purl: "pkg:npm/a@1", expression: "MIT", licenseIds: ["MIT"], registry: "npm" },
      { purl: "pkg:pypi/c@1", expression: "Apache-2.0", licenseIds: ["Apache-2.0"], registry: "pypi" },
    ]);
    expect(Object.fromEntries(fills.filled)).toEqual({ npm: 1, pypi: 1 });
    expect(fills).toMatchObject({ unstated: 1, unreached: 1 });
    // The inventory itself is not changed: the artefact carries the document's licenses only.
    expect(inventory.components.find((c) => c.name === "a")).toMatchObject({ declaredLicense: null });
  });
});

describe("SCAN_SCOPE_FILTER_MAVEN_ENABLED / _NODE_ENABLED", () => {
  const sbom = () =>
    readSbom(
      json({
        bomFormat: "CycloneDX",
        specVersion: "1.5",
        metadata: { component: { type: "application", name: "app", version: "1", "bom-ref": "app" } },
        components: [
          {
            "bom-ref": "m",
            type: "library",
            name: "junit",
            version: "4.13.2",
            purl: "pkg:maven/junit/junit@4.13.2",
            scope: "excluded",
          },
          {
            "bom-ref": "n",
            type: "library",
            name: "jest",
            version: "29.0.0",
            purl: "pkg:npm/jest@29.0.0",
            scope: "excluded",
          },
          {
            "bom-ref": "p",
            type: "library",
            name: "pytest",
            version: "8.0.0",
            purl: "pkg:pypi/pytest@8.0.0",
            scope: "excluded",
          },
          {
            "bom-ref": "r",
            type: "library",
            name: "left-pad",
            version: "1.3.0",
            purl: "pkg:npm/left-pad@1.3.0",
            scope: "required",
          },
        ],
        dependencies: [{ ref: "app", dependsOn: ["m", "n", "p", "r"] }],
      }),
    );
  const kept = (scopeFilter: boolean, maven: boolean, node: boolean) => {
    const inventory = refineScopes(sbom(), scopeFilter, { maven, node });
    return [...inventoryRecords(inventory, { scopeFilter })]
      .filter((r) => r.record.case === "component")
      .map((r) => {
        const c = r.record.value as { name: string; dependencyScope?: string };
        return `${c.name}:${c.dependencyScope ?? "-"}`;
      });
  };

  it("names the ecosystem by the purl's type", () => {
    expect(scopeFilterEcosystemOf({ purl: "pkg:maven/junit/junit@4.13.2" })).toBe("maven");
    expect(scopeFilterEcosystemOf({ purl: "pkg:npm/%40types/node@20" })).toBe("node");
    expect(scopeFilterEcosystemOf({ purl: "pkg:pypi/six@1" })).toBeNull();
    expect(scopeFilterEcosystemOf({ purl: null })).toBeNull();
  });

  it("both on (the default): every non-runtime component is dropped", () => {
    expect(kept(true, true, true)).toEqual(["left-pad:required"]);
  });

  it("Maven's off: Maven's non-runtime components stay, unscoped; the others' are dropped", () => {
    expect(kept(true, false, true)).toEqual(["junit:-", "left-pad:required"]);
  });

  it("Node's off: npm's non-runtime components stay, unscoped", () => {
    expect(kept(true, true, false)).toEqual(["jest:-", "left-pad:required"]);
  });

  it("the filter off: everything stays whatever the refinements say", () => {
    expect(kept(false, true, true)).toEqual(["junit:-", "jest:-", "pytest:-", "left-pad:required"]);
    expect(
      encodeInventoryArtefact(refineScopes(sbom(), false, { maven: false, node: false }), { scopeFilter: false })
        .componentCount,
    ).toBe(4);
  });
});
