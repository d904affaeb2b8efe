// The SBOM reader against every real SBOM of the shared set (counts from SOURCES.md, purls and licenses checked
// by hand against the files, graph facts) and against the bad inputs it must refuse or survive.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { readSbom } from "../src/domain/sbom/read-sbom.ts";
import { SbomReadError } from "../src/domain/sbom/errors.ts";
import type { SbomComponent, SbomInventory } from "../src/domain/sbom/inventory.ts";
import { SBOM_MAX_BYTES } from "../src/domain/sbom/limits.ts";
import { sharedDir } from "./support/shared-dir.ts";

const sbomDir = join(sharedDir(), "data", "sbom");
const read = (path: string): SbomInventory => readSbom(readFileSync(join(sbomDir, path)));
const byPurl = (inventory: SbomInventory, purl: string): SbomComponent | undefined =>
  inventory.components.find((c) => c.purl === purl);
const byName = (inventory: SbomInventory, name: string): SbomComponent[] =>
  inventory.components.filter((c) => c.name === name);
const warningCount = (inventory: SbomInventory, code: string): number =>
  inventory.warnings.find((w) => w.code === code)?.count ?? 0;

function readError(input: string | Uint8Array, maxBytes?: number): SbomReadError {
  try {
    readSbom(input, maxBytes === undefined ? {} : { maxBytes });
  } catch (error) {
    expect(error).toBeInstanceOf(SbomReadError);
    const sbomError = error as SbomReadError;
    expect(sbomError.message).not.toMatch(/\n\s+at /);
    return sbomError;
  }
  throw new Error("the reader accepted the input");
}

describe("CycloneDX real SBOMs", () => {
  it("cern-lhc-vdm-editor 1.2 JSON: 43 components, no graph, the XML twin reads the same inventory", () => {
    const json = read("cyclonedx/cern-lhc-vdm-editor-e564943.cdx-1.2.json");
    expect(json.document).toMatchObject({
      format: "cyclonedx-json",
      specVersion: "1.2",
      serialNumber: "urn:uuid:699b6458-60da-4f52-b1b3-34915dc01eb6",
      release: "0.0.1",
    });
    expect(json.components).toHaveLength(43);
    expect(byPurl(json, "pkg:npm/puppeteer@1.19.0")).toMatchObject({
      declaredLicense: "Apache-2.0",
      direct: null,
      depth: null,
    });
    expect(json.graph.rooted).toBe(false);
    // SOURCES.md counts 44 for the XML: it counted the metadata component too; it is the primary here.
    const xml = read("cyclonedx/cern-lhc-vdm-editor-e564943.cdx.xml");
    expect(xml.document).toMatchObject({ format: "cyclonedx-xml", specVersion: "1.2" });
    expect(xml.document.primaryComponent).toMatchObject({
      purl: "pkg:npm/lhc-vdm-editor@0.0.1",
      declaredLicense: "Apache-2.0",
      description: "A code and file editor for VdM scans.",
    });
    expect(xml.components).toHaveLength(43);
    expect(xml.components.map((c) => c.key).sort()).toEqual(json.components.map((c) => c.key).sort());
    expect(xml.components.map((c) => c.declaredLicense)).toEqual(
      xml.components.map((c) => json.components.find((j) => j.key === c.key)!.declaredLicense),
    );
  });

  it("laravel 1.4 JSON: 62 components, one direct dependency, graph depth 6; the 1.1 XML twin has the same components", () => {
    const json = read("cyclonedx/laravel-7.12.0.cdx-1.4.json");
    expect(json.components).toHaveLength(62);
    expect(byPurl(json, "pkg:composer/asm89/stack-cors@1.3.0")).toMatchObject({
      group: "asm89",
      name: "stack-cors",
      version: "1.3.0",
      declaredLicense: "MIT",
    });
    // The root depends on laravel/laravel only (its dependencies entry lists one ref).
    expect(json.graph).toMatchObject({ rooted: true, directCount: 1, maxDepth: 6, componentsInCycles: 0 });
    expect(json.components.filter((c) => c.direct).map((c) => c.name)).toEqual(["laravel"]);
    expect(json.components.every((c) => c.depth !== null)).toBe(true);
    const xml = read("cyclonedx/laravel-7.12.0.cdx-1.1.xml");
    expect(xml.document).toMatchObject({ format: "cyclonedx-xml", specVersion: "1.1", primaryComponent: null });
    expect(xml.components).toHaveLength(62);
    expect(new Set(xml.components.map((c) => c.purl))).toEqual(new Set(json.components.map((c) => c.purl)));
    expect(byPurl(xml, "pkg:composer/asm89/stack-cors@1.3.0")).toMatchObject({
      declaredLicense: "MIT",
      description: "Cross-origin resource sharing library and stack middleware",
    });
  });

  it("dropwizard 1.2 JSON: 167 components; its dependencies never start at the primary component, so direct stays unknown", () => {
    const inventory = read("cyclonedx/dropwizard-1.3.15.cdx-1.2.json");
    expect(inventory.components).toHaveLength(167);
    expect(byPurl(inventory, "pkg:maven/com.fasterxml.jackson.core/jackson-annotations@2.9.10?type=jar")).toMatchObject(
      { declaredLicense: "Apache-2.0" },
    );
    expect(inventory.graph).toMatchObject({ rooted: false, edgeCount: 170 });
    expect(inventory.components.every((c) => c.direct === null)).toBe(true);
  });

  it("keycloak 1.2 JSON: 903 components, license names become SPDX ids or LicenseRefs", () => {
    const inventory = read("cyclonedx/keycloak-10.0.2.cdx-1.2.json");
    expect(inventory.components).toHaveLength(903);
    const bouncy = byPurl(inventory, "pkg:maven/org.bouncycastle/bcprov-jdk15on@1.62?type=jar")!;
    // The file names the license "Bouncy Castle Licence" (no id): not an SPDX id, kept as a LicenseRef.
    expect(bouncy.declaredLicense).toBe("LicenseRef-Bouncy-Castle-Licence");
    expect(warningCount(inventory, "license_not_spdx")).toBeGreaterThan(0);
  });

  it("proton-bridge 1.2 JSON: 201 components, 56 direct, scope required as declared", () => {
    const inventory = read("cyclonedx/proton-bridge-v1.8.0.cdx-1.2.json");
    expect(inventory.components).toHaveLength(201);
    const notificator = byPurl(inventory, "pkg:golang/github.com/0xAX/notificator@v0.0.0-20191016112426-3962a5ea8da1")!;
    expect(notificator).toMatchObject({ declaredLicense: "BSD-3-Clause", scope: "required" });
    expect(inventory.graph).toMatchObject({ rooted: true, directCount: 56, maxDepth: 6 });
    // go modules depending on each other both ways: the reader notes the cycle and still ends.
    expect(inventory.graph.componentsInCycles).toBeGreaterThan(0);
    expect(warningCount(inventory, "dependency_cycle")).toBe(1);
  });

  it("juice-shop npm flat 1.4 JSON: 1115 entries, 978 distinct purls (npm installs one version in several places)", () => {
    const inventory = read("cyclonedx/juice-shop-via-npm-flat.cdx-1.4.json");
    expect(inventory.declaredComponentCount).toBe(1115);
    expect(inventory.components).toHaveLength(978);
    expect(warningCount(inventory, "duplicate_component")).toBe(1115 - 978);
    expect(byPurl(inventory, "pkg:npm/express@4.18.2")).toMatchObject({
      declaredLicense: "MIT",
      direct: true,
      depth: 1,
    });
    expect(inventory.graph).toMatchObject({ rooted: true, directCount: 71, maxDepth: 9 });
  });

  it("juice-shop cyclonedx-npm 1.7 JSON: 1116 entries (nested ones included), 1001 distinct purls", () => {
    const inventory = read("cyclonedx/juice-shop-cyclonedx-npm.cdx-1.7.json");
    expect(inventory.document.specVersion).toBe("1.7");
    expect(inventory.declaredComponentCount).toBe(1116);
    expect(inventory.components).toHaveLength(1001);
    // acknowledgement "declared" (1.6+) lands in declaredLicense.
    expect(byPurl(inventory, "pkg:npm/express@4.22.2")).toMatchObject({
      declaredLicense: "MIT",
      concludedLicense: null,
    });
    expect(inventory.components.filter((c) => c.scope === "optional").length).toBeGreaterThan(0);
    expect(inventory.graph).toMatchObject({ rooted: true, directCount: 71, maxDepth: 9 });
  });

  it("redis-commander 1.4 JSON: 514 entries with nested ones, 479 distinct purls, 28 direct", () => {
    const inventory = read("cyclonedx/redis-commander.cdx-1.4.json");
    expect(inventory.declaredComponentCount).toBe(514);
    expect(inventory.components).toHaveLength(479);
    expect(byPurl(inventory, "pkg:npm/%40cyclonedx/bom@4.0.2")).toMatchObject({
      group: "@cyclonedx",
      declaredLicense: "Apache-2.0",
    });
    expect(inventory.graph).toMatchObject({ rooted: true, directCount: 28, maxDepth: 7 });
  });

  it("harp 1.4 JSON: 705 components (nested packages included); the module's own packages are the root", () => {
    const inventory = read("cyclonedx/harp-v0.2.10-darwin-amd64.cdx-1.4.json");
    expect(inventory.components).toHaveLength(705);
    expect(byPurl(inventory, "pkg:golang/filippo.io/age@v1.0.0?type=module")).toMatchObject({
      scope: "required",
      declaredLicense: null,
      direct: true,
    });
    // metadata.component lists 69 modules directly; its 109 own packages (nested under it) import more, and
    // edges from them are edges from the root.
    expect(inventory.graph.rooted).toBe(true);
    expect(inventory.graph.directCount).toBeGreaterThanOrEqual(69);
    expect(inventory.graph.maxDepth).toBeGreaterThan(1);
  });

  it("ascii-boxes 1.4 JSON: 2 components without purl or bom-ref, identified by name", () => {
    const inventory = read("cyclonedx/ascii-boxes.cdx-1.4.json");
    expect(inventory.components.map((c) => [c.key, c.declaredLicense])).toEqual([
      ["component:library//libunistring@0.9.10-4", "GPL-3.0-or-later AND GPL-2.0-only"],
      ["component:library//PCRE2@10.40", "BSD-3-Clause"],
    ]);
    expect(inventory.components[0]!.purl).toBeNull();
  });

  it("ghidra 1.4 JSON: 109 entries, 105 components (4 repeated purls merged), 47 without purl kept", () => {
    const inventory = read("cyclonedx/ghidra-10.2.2.cdx-1.4.json");
    expect(inventory.declaredComponentCount).toBe(109);
    expect(inventory.components).toHaveLength(105);
    expect(inventory.components.filter((c) => c.purl === null)).toHaveLength(47);
    expect(byName(inventory, "hfsx")[0]!.hashes).toEqual([
      { algorithm: "MD5", value: "6a7bd7fe88cd22ac55e13c613bdce5c3" },
      { algorithm: "SHA-1", value: "3e4ecaf30fd0ec3f74539012107d5896548a75cd" },
    ]);
  });

  it("traefik XML 1.4: 266 components (SOURCES.md's 267 counts the metadata container), & entities decoded", () => {
    const inventory = read("cyclonedx/traefik.cdx.xml");
    expect(inventory.document).toMatchObject({
      format: "cyclonedx-xml",
      specVersion: "1.4",
      tools: ["anchore syft 0.60.3", expect.stringContaining("RKVST") as unknown],
    });
    expect(inventory.document.primaryComponent).toMatchObject({
      type: "container",
      name: "traefik",
      supplier: "dockerhub",
    });
    expect(inventory.components).toHaveLength(266);
    const baselayout = inventory.components.find((c) =>
      c.refs[0]!.startsWith("pkg:alpine/alpine-baselayout@3.2.0-r18"),
    )!;
    // The file writes &amp; in bom-ref and purl; qualifiers come back sorted (canonical purl).
    expect(baselayout.refs[0]).toContain("&upstream=alpine-baselayout");
    expect(baselayout.purl).toBe(
      "pkg:alpine/alpine-baselayout@3.2.0-r18?arch=x86_64&distro=alpine-3.15.4&upstream=alpine-baselayout",
    );
  });
});

describe("SPDX real SBOMs", () => {
  it("appbomination 2.2 JSON and 3.0 JSON-LD: 7 packages, the described one is the primary, same inventory", () => {
    const v2 = read("spdx/spdx-examples-appbomination.spdx-2.2.json");
    const v3 = read("spdx/spdx-examples-appbomination.spdx-3.0.json");
    expect(v2.document).toMatchObject({ format: "spdx-json", specVersion: "2.2" });
    expect(v3.document).toMatchObject({
      format: "spdx3-jsonld",
      specVersion: "3.0.1",
      name: "SpdxDoc for App-BOM-ination",
    });
    for (const inventory of [v2, v3]) {
      expect(inventory.document.primaryComponent).toMatchObject({ name: "App-BOM-ination", version: "1.0" });
      // SOURCES.md counts 7 packages: the described one is the primary component, not inventory.
      expect(inventory.components).toHaveLength(6);
      expect(byPurl(inventory, "pkg:maven/org.apache.commons/commons-lang3@3.4")).toMatchObject({
        direct: true,
        depth: 1,
      });
      // junit is a TEST_DEPENDENCY_OF the app (2.2) / a dependsOn scoped "test" (3.0); hamcrest comes through it.
      expect(byPurl(inventory, "pkg:maven/junit/junit@4.12")).toMatchObject({ direct: true, scope: "excluded" });
      expect(byPurl(inventory, "pkg:maven/org.hamcrest/hamcrest-core@1.3")).toMatchObject({
        direct: false,
        depth: 2,
        scope: "excluded",
      });
      expect(inventory.graph).toMatchObject({ rooted: true, directCount: 3, maxDepth: 2 });
    }
    expect(byPurl(v2, "pkg:maven/org.apache.commons/commons-lang3@3.4")!.concludedLicense).toBe("Apache-2.0");
    expect(v2.document.primaryComponent!.concludedLicense).toBe("LicenseRef-1 AND Apache-2.0");
    expect(v3.document.primaryComponent!.concludedLicense).toBe("Apache-2.0 AND LicenseRef-1");
  });

  it("examplemaven 2.3 JSON: 6 packages, DYNAMIC_LINK is a required dependency, junit a test one", () => {
    const inventory = read("spdx/spdx-examples-examplemaven-0.0.1-enriched.spdx-2.3.json");
    expect(inventory.document.primaryComponent).toMatchObject({
      name: "examplemaven",
      supplier: "SPDX",
      declaredLicense: "Apache-2.0",
      hashes: [{ algorithm: "SHA-1", value: "b8a7e6c75001e6d78625cfc9a3103bf121abf8b4" }],
    });
    // SOURCES.md: 6 packages, one of them the described examplemaven (the primary).
    expect(inventory.components).toHaveLength(5);
    expect(byName(inventory, "JUnit")[0]).toMatchObject({
      declaredLicense: "CPL-1.0",
      concludedLicense: null,
      scope: "excluded",
      direct: true,
    });
    expect(byName(inventory, "Apache Log4j API")[0]).toMatchObject({
      scope: "required",
      direct: true,
      purl: null,
      key: "component://Apache%20Log4j%20API@",
    });
  });

  it("julia 2.2 JSON: 34 packages, the described one is Julia, 32 build/runtime dependencies, expressions with WITH", () => {
    const inventory = read("spdx/julia.spdx-2.2.json");
    expect(inventory.document.primaryComponent).toMatchObject({ name: "Julia" });
    // SOURCES.md: 34 packages, one of them the described Julia (the primary).
    expect(inventory.components).toHaveLength(33);
    expect(inventory.graph).toMatchObject({ rooted: true, directCount: 32, maxDepth: 1 });
    const licenses = new Set(inventory.components.map((c) => c.concludedLicense));
    expect(licenses).toContain("Apache-2.0 WITH LLVM-exception");
    expect(inventory.components.filter((c) => c.scope === "excluded").length).toBeGreaterThanOrEqual(28);
  });

  it("powershell 2.2 JSON: 331 packages, the root package DEPENDS_ON all 330 others", () => {
    const inventory = read("spdx/powershell-7.2.1-linux-alpine-x64.spdx-2.2.json");
    // SOURCES.md: 331 packages, one of them the described root package (the primary).
    expect(inventory.components).toHaveLength(330);
    expect(inventory.graph).toMatchObject({ rooted: true, directCount: 330, maxDepth: 1 });
    expect(inventory.components.every((c) => c.scope === null)).toBe(true);
  });

  it("syft 2.2 JSON (grype, flux, constellation): every package reads; one module found in several binaries is one component", () => {
    const grype = read("spdx/grype-v0.32.0.spdx-2.2.json");
    expect(grype.declaredComponentCount).toBe(1160);
    expect(grype.components.length + warningCount(grype, "duplicate_component")).toBe(1160);
    expect(grype.components.filter((c) => c.purl === null).length).toBeGreaterThanOrEqual(1);
    const flux = read("spdx/flux-0.26.3.spdx-2.2.json");
    expect(flux.declaredComponentCount).toBe(244);
    expect(flux.components.length + warningCount(flux, "duplicate_component")).toBe(244);
    const constellation = read("spdx/constellation-v2.2.2.spdx-2.2.json");
    expect(constellation.declaredComponentCount).toBe(1303);
    expect(byPurl(constellation, "pkg:golang/cloud.google.com/go@v0.103.0")).toMatchObject({
      declaredLicense: null,
      concludedLicense: null,
      version: "v0.103.0",
    });
    // Its CONTAINS edges start at an element the document never declares: warned, not guessed.
    expect(warningCount(constellation, "unknown_dependency_ref")).toBe(1303);
    expect(constellation.graph.rooted).toBe(false);
  });

  it("kubernetes tag-value 2.3: 130 packages; images CONTAIN layers; the document DESCRIBES several top-level packages", () => {
    const inventory = read("spdx/kubernetes-v1.25.4-release.spdx");
    expect(inventory.document).toMatchObject({
      format: "spdx-tag-value",
      specVersion: "2.3",
      name: "Kubernetes Release v1.25.4",
      serialNumber: "https://sbom.k8s.io/v1.25.4/release",
      primaryComponent: null,
    });
    expect(inventory.document.tools).toEqual(["sigs.k8s.io/bom/pkg/spdx"]);
    expect(inventory.declaredComponentCount).toBe(130);
    // Identical layers (same name "sha256:..." and no version or purl) shared by several images merge.
    expect(inventory.components.length + warningCount(inventory, "duplicate_component")).toBe(130);
    const image = byName(inventory, "conformance-ppc64le.tar")[0]!;
    expect(image).toMatchObject({
      direct: true,
      depth: 1,
      hashes: expect.arrayContaining([
        { algorithm: "SHA-256", value: "042601864b79e0df45192919b09887f788552a67a63490458fc799691602f3ec" },
      ]) as unknown,
    });
    expect(inventory.graph).toMatchObject({ rooted: true, maxDepth: 2 });
  });

  it("SPDX 2 tag-value and JSON read the same document the same way", () => {
    const json = JSON.parse(
      readFileSync(join(sbomDir, "spdx/spdx-examples-examplemaven-0.0.1-enriched.spdx-2.3.json"), "utf8"),
    ) as { packages: Array<Record<string, unknown>>; relationships: Array<Record<string, string>> };
    const lines = [
      "SPDXVersion: SPDX-2.3",
      "DataLicense: CC0-1.0",
      "SPDXID: SPDXRef-DOCUMENT",
      "DocumentName: examplemaven",
      "DocumentNamespace: http://spdx.org/documents/examplemaven-0.0.1/enriched",
      "Creator: Tool: hand",
      "Created: 2023-01-01T00:00:00Z",
      "",
    ];
    for (const pkg of json.packages) {
      lines.push(`PackageName: ${String(pkg.name)}`, `SPDXID: ${String(pkg.SPDXID)}`);
      if (typeof pkg.versionInfo === "string") lines.push(`PackageVersion: ${pkg.versionInfo}`);
      if (typeof pkg.supplier === "string") lines.push(`PackageSupplier: ${pkg.supplier}`);
      for (const c of (pkg.checksums as Array<Record<string, string>> | undefined) ?? [])
        lines.push(`PackageChecksum: ${c.algorithm}: ${c.checksumValue}`);
      lines.push(
        `PackageLicenseConcluded: ${String(pkg.licenseConcluded)}`,
        `PackageLicenseDeclared: ${String(pkg.licenseDeclared)}`,
        `PackageDescription: <text>multi`,
        `line</text>`,
        "",
      );
    }
    for (const r of json.relationships)
      lines.push(`Relationship: ${r.spdxElementId} ${r.relationshipType} ${r.relatedSpdxElement}`);
    const fromTagValue = readSbom(lines.join("\n"));
    const fromJson = read("spdx/spdx-examples-examplemaven-0.0.1-enriched.spdx-2.3.json");
    const facts = (inventory: SbomInventory) =>
      inventory.components.map((c) => [
        c.key,
        c.version,
        c.declaredLicense,
        c.concludedLicense,
        c.scope,
        c.direct,
        c.depth,
      ]);
    expect(facts(fromTagValue)).toEqual(facts(fromJson));
    expect(fromTagValue.document.primaryComponent).toMatchObject({
      supplier: "SPDX",
      hashes: fromJson.document.primaryComponent!.hashes,
      description: "multi\nline",
    });
  });
});

describe("format details beyond the shared set", () => {
  it("CycloneDX 1.6 XML: tools as components, acknowledged licenses, nested components and dependencies, CDATA kept literal", () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<bom xmlns="http://cyclonedx.org/schema/bom/1.6" serialNumber="urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79" version="7">
  <metadata>
    <timestamp>2026-01-02T03:04:05Z</timestamp>
    <tools><components><component type="application"><group>acme</group><name>scanner</name><version>2.0</version></component></components></tools>
    <component type="application" bom-ref="app"><name>app</name><version>3.1.0</version></component>
  </metadata>
  <components>
    <component type="library" bom-ref="lib">
      <supplier><name>Acme &amp; Co</name><url>https://acme.test</url></supplier>
      <authors><author><name>Ann</name></author><author><name>Bo</name></author></authors>
      <group>org.acme</group><name>lib</name><version>1.0</version>
      <description><![CDATA[a &amp; b <not a tag>]]></description>
      <scope>optional</scope>
      <hashes><hash alg="SHA-256">ABCDEF</hash></hashes>
      <licenses>
        <license acknowledgement="declared"><id>Apache-2.0</id></license>
        <license acknowledgement="concluded"><name>MIT License</name></license>
      </licenses>
      <cpe>cpe:2.3:a:acme:lib:1.0:*:*:*:*:*:*:*</cpe>
      <purl>pkg:maven/org.acme/lib@1.0?type=jar</purl>
      <components>
        <component type="library" bom-ref="inner"><name>inner</name><version>0.1</version><licenses><expression acknowledgement="declared">MIT OR ISC</expression></licenses></component>
      </components>
    </component>
  </components>
  <dependencies>
    <dependency ref="app"><dependency ref="lib"/></dependency>
    <dependency ref="lib"><dependency ref="inner"/></dependency>
  </dependencies>
</bom>`;
    const inventory = readSbom(xml);
    expect(inventory.document).toMatchObject({
      format: "cyclonedx-xml",
      specVersion: "1.6",
      bomVersion: 7,
      tools: ["acme scanner 2.0"],
      createdAt: "2026-01-02T03:04:05Z",
      release: "3.1.0",
    });
    expect(inventory.components[0]).toMatchObject({
      key: "pkg:maven/org.acme/lib@1.0?type=jar",
      supplier: "Acme & Co",
      author: "Ann, Bo",
      description: "a &amp; b <not a tag>",
      scope: "optional",
      hashes: [{ algorithm: "SHA-256", value: "abcdef" }],
      declaredLicense: "Apache-2.0",
      concludedLicense: "MIT",
      licenseIds: ["Apache-2.0", "MIT"],
      cpe: "cpe:2.3:a:acme:lib:1.0:*:*:*:*:*:*:*",
      direct: true,
      depth: 1,
    });
    expect(inventory.components[1]).toMatchObject({
      key: "component:library//inner@0.1",
      declaredLicense: "MIT OR ISC",
      direct: false,
      depth: 2,
    });
    expect(JSON.parse(inventory.components[0]!.rawJson)).not.toHaveProperty("components");
  });

  it("SPDX 3: listed-license URIs, NoAssertion, lifecycle scopes, optional dependencies, an Sbom as root", () => {
    const id = (name: string) => `https://example.test/doc#${name}`;
    const doc = {
      "@context": "https://spdx.org/rdf/3.0.1/spdx-context.jsonld",
      "@graph": [
        {
          "@id": "_:ci",
          type: "CreationInfo",
          specVersion: "3.0.1",
          created: "2026-01-01T00:00:00Z",
          createdUsing: [id("tool")],
        },
        { spdxId: id("tool"), type: "Tool", name: "maker 1.0", creationInfo: "_:ci" },
        { spdxId: id("org"), type: "Organization", name: "Acme", creationInfo: "_:ci" },
        { spdxId: id("doc"), type: "SpdxDocument", name: "demo", rootElement: [id("sbom")], creationInfo: "_:ci" },
        { spdxId: id("sbom"), type: "software_Sbom", rootElement: [id("app")], creationInfo: "_:ci" },
        {
          spdxId: id("app"),
          type: "software_Package",
          name: "app",
          software_packageVersion: "2.0",
          creationInfo: "_:ci",
        },
        {
          spdxId: id("run"),
          type: "software_Package",
          name: "run",
          software_packageVersion: "1.0",
          suppliedBy: id("org"),
          externalIdentifier: [
            { type: "ExternalIdentifier", externalIdentifierType: "packageUrl", identifier: "pkg:pypi/run@1.0" },
          ],
          verifiedUsing: [{ type: "Hash", algorithm: "sha256", hashValue: "AA" }],
          software_primaryPurpose: "library",
          creationInfo: "_:ci",
        },
        {
          spdxId: id("opt"),
          type: "software_Package",
          name: "opt",
          software_packageUrl: "pkg:pypi/opt@2",
          creationInfo: "_:ci",
        },
        {
          spdxId: id("dev"),
          type: "software_Package",
          name: "dev",
          software_packageUrl: "pkg:pypi/dev@3",
          creationInfo: "_:ci",
        },
        {
          spdxId: id("r1"),
          type: "LifecycleScopedRelationship",
          relationshipType: "dependsOn",
          scope: "runtime",
          from: id("app"),
          to: [id("run")],
          creationInfo: "_:ci",
        },
        {
          spdxId: id("r2"),
          type: "Relationship",
          relationshipType: "hasOptionalDependency",
          from: id("run"),
          to: [id("opt")],
          creationInfo: "_:ci",
        },
        {
          spdxId: id("r3"),
          type: "LifecycleScopedRelationship",
          relationshipType: "dependsOn",
          scope: "development",
          from: id("app"),
          to: [id("dev")],
          creationInfo: "_:ci",
        },
        {
          spdxId: id("r4"),
          type: "Relationship",
          relationshipType: "hasDeclaredLicense",
          from: id("run"),
          to: ["https://spdx.org/licenses/BSD-2-Clause"],
          creationInfo: "_:ci",
        },
        {
          spdxId: id("r5"),
          type: "Relationship",
          relationshipType: "hasConcludedLicense",
          from: id("run"),
          to: ["https://spdx.org/rdf/3.0.1/terms/Expanded/NoAssertionLicense"],
          creationInfo: "_:ci",
        },
      ],
    };
    const inventory = readSbom(JSON.stringify(doc));
    expect(inventory.document).toMatchObject({
      format: "spdx3-jsonld",
      specVersion: "3.0.1",
      name: "demo",
      tools: ["maker 1.0"],
      createdAt: "2026-01-01T00:00:00Z",
      release: "2.0",
    });
    expect(inventory.document.primaryComponent).toMatchObject({ name: "app" });
    const [run, opt, dev] = inventory.components;
    expect(run).toMatchObject({
      purl: "pkg:pypi/run@1.0",
      type: "library",
      supplier: "Acme",
      declaredLicense: "BSD-2-Clause",
      concludedLicense: null,
      scope: "required",
      direct: true,
      hashes: [{ algorithm: "SHA-256", value: "aa" }],
    });
    expect(opt).toMatchObject({ scope: "optional", depth: 2 });
    expect(dev).toMatchObject({ scope: "excluded", direct: true });
    expect(
      readError(JSON.stringify({ ...doc, "@graph": [{ "@id": "_:ci", type: "CreationInfo", specVersion: "4.0.0" }] }))
        .code,
    ).toBe("sbom_unsupported_spec_version");
  });
});

describe("bad input", () => {
  const cern = readFileSync(join(sbomDir, "cyclonedx/cern-lhc-vdm-editor-e564943.cdx-1.2.json"), "utf8");
  const cernXml = readFileSync(join(sbomDir, "cyclonedx/cern-lhc-vdm-editor-e564943.cdx.xml"), "utf8");

  it("truncated JSON is malformed JSON, with the position and no content", () => {
    const error = readError(cern.slice(0, 5000));
    expect(error.code).toBe("sbom_malformed_json");
    expect(error.status).toBe(422);
    expect(error.message).toMatch(/^The JSON document is malformed or truncated/);
  });

  it("truncated XML is malformed XML", () => {
    expect(readError(cernXml.slice(0, 5000)).code).toBe("sbom_malformed_xml");
    expect(readError('<bom xmlns="http://cyclonedx.org/schema/bom/1.4"><components><component>').code).toBe(
      "sbom_malformed_xml",
    );
  });

  it("an external entity (XXE) and a DOCTYPE entity bomb are refused before parsing", () => {
    const xxe =
      '<?xml version="1.0"?><!DOCTYPE bom [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><bom xmlns="http://cyclonedx.org/schema/bom/1.4"><components><component type="library"><name>&xxe;</name></component></components></bom>';
    expect(readError(xxe).code).toBe("sbom_xml_doctype_refused");
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ""};`.repeat(10)}">`).join("")}]><bom xmlns="http://cyclonedx.org/schema/bom/1.4"><components><component type="library"><name>&lol9;</name></component></components></bom>`;
    const error = readError(bomb);
    expect(error.code).toBe("sbom_xml_doctype_refused");
    expect(error.status).toBe(422);
  });

  it("an undeclared entity reference stays text: no expansion happens without a DOCTYPE", () => {
    const inventory = readSbom(
      '<bom xmlns="http://cyclonedx.org/schema/bom/1.5"><components><component type="library"><name>a&amp;b &#x41; &unknown;</name></component></components></bom>',
    );
    expect(inventory.components[0]!.name).toBe("a&b A &unknown;");
  });

  it("unknown format, not an SBOM, unsupported versions", () => {
    expect(readError("name,version\nfoo,1\n").code).toBe("sbom_unknown_format");
    expect(readError("").code).toBe("sbom_not_an_sbom");
    expect(readError('{"hello":"world"}').code).toBe("sbom_not_an_sbom");
    expect(readError("[1,2]").code).toBe("sbom_not_an_sbom");
    expect(readError("<html><body/></html>").code).toBe("sbom_not_an_sbom");
    expect(readError('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>').code).toBe(
      "sbom_unknown_format",
    );
    const old = readError('{"bomFormat":"CycloneDX","specVersion":"1.1","components":[]}');
    expect(old.code).toBe("sbom_unsupported_spec_version");
    expect(old.message).toBe(
      "CycloneDX JSON version 1.1 is not supported; supported versions: 1.2, 1.3, 1.4, 1.5, 1.6, 1.7.",
    );
    expect(readError('{"spdxVersion":"SPDX-2.1","packages":[]}').code).toBe("sbom_unsupported_spec_version");
    expect(readError('<bom xmlns="http://cyclonedx.org/schema/bom/2.0"/>').code).toBe("sbom_unsupported_spec_version");
    expect(readError("SPDXVersion: SPDX-2.3\nthis line is not a tag\n").code).toBe("sbom_malformed_tag_value");
    expect(readError("SPDXVersion: SPDX-2.3\nPackageName: x\nPackageDescription: <text>never ends\n").code).toBe(
      "sbom_malformed_tag_value",
    );
  });

  it("over the size cap is refused with 413; exactly the cap is read", () => {
    const atCap = Buffer.byteLength(cern, "utf8");
    expect(readSbom(cern, { maxBytes: atCap }).components).toHaveLength(43);
    const error = readError(cern, atCap - 1);
    expect(error.code).toBe("sbom_too_large");
    expect(error.status).toBe(413);
    expect(error.message).toBe(
      `The SBOM is ${atCap} bytes; the largest accepted is ${atCap - 1} bytes (${((atCap - 1) / 1048576).toFixed(2)} MiB).`,
    );
    expect(SBOM_MAX_BYTES).toBe(52_428_800);
    expect(readError(new Uint8Array(SBOM_MAX_BYTES + 1)).code).toBe("sbom_too_large");
  });

  it("duplicate bom-refs, repeated purls, missing purls and cycles are warnings, never a crash", () => {
    const bom = {
      bomFormat: "CycloneDX",
      specVersion: "1.5",
      metadata: { component: { "bom-ref": "app", type: "application", name: "app", version: "1" } },
      components: [
        { "bom-ref": "a", type: "library", name: "a", version: "1", purl: "pkg:npm/a@1" },
        { "bom-ref": "a", type: "library", name: "b", version: "2", purl: "pkg:npm/b@2" },
        {
          "bom-ref": "a2",
          type: "library",
          name: "a",
          version: "1",
          purl: "pkg:NPM/a@1",
          hashes: [{ alg: "SHA-256", content: "AB" }],
        },
        { "bom-ref": "c", type: "library", name: "c", version: "3" },
        { "bom-ref": "d", type: "library", name: "d", version: "4", purl: "not a purl" },
        {
          "bom-ref": "e",
          type: "library",
          name: "e",
          version: "5",
          licenses: [{ license: { id: "mit" } }, { expression: "apache-2.0 or Foo-Custom" }],
        },
        { "bom-ref": "x", type: "library", version: "5" },
      ],
      dependencies: [
        { ref: "app", dependsOn: ["a", "c"] },
        { ref: "a", dependsOn: ["a2", "c", "a"] },
        { ref: "c", dependsOn: ["d", "missing"] },
        { ref: "d", dependsOn: ["c", "e"] },
        { ref: "e", dependsOn: ["app"] },
      ],
    };
    const inventory = readSbom(JSON.stringify(bom));
    expect(inventory.components.map((c) => c.key)).toEqual([
      "pkg:npm/a@1",
      "pkg:npm/b@2",
      "component:library//c@3",
      "component:library//d@4",
      "component:library//e@5",
    ]);
    const a = inventory.components[0]!;
    expect(a).toMatchObject({
      refs: ["a", "a2"],
      hashes: [{ algorithm: "SHA-256", value: "ab" }],
      direct: true,
      depth: 1,
    });
    expect(inventory.components[1]).toMatchObject({ refs: ["a"], direct: false, depth: null });
    expect(inventory.components[3]).toMatchObject({ purl: null, depth: 2 });
    expect(inventory.components[4]).toMatchObject({
      depth: 3,
      declaredLicense: "MIT AND (Apache-2.0 OR LicenseRef-Foo-Custom)",
      licenseIds: ["Apache-2.0", "LicenseRef-Foo-Custom", "MIT"],
    });
    expect(inventory.graph).toMatchObject({ rooted: true, directCount: 2, maxDepth: 3, componentsInCycles: 3 });
    const codes = Object.fromEntries(inventory.warnings.map((w) => [w.code, w.count]));
    expect(codes).toEqual({
      duplicate_bom_ref: 1,
      duplicate_component: 1,
      invalid_purl: 1,
      license_not_spdx: 1,
      component_without_name: 1,
      unknown_dependency_ref: 1,
      dependency_cycle: 1,
    });
  });

  it("raw_data over its ceiling keeps the fields that fit and says it was cut", () => {
    const bom = {
      bomFormat: "CycloneDX",
      specVersion: "1.4",
      components: [
        { type: "library", name: "big", version: "1", description: "x".repeat(5000), purl: "pkg:npm/big@1" },
      ],
    };
    const [component] = readSbom(JSON.stringify(bom), { rawDataMaxBytes: 1000 }).components;
    expect(JSON.parse(component!.rawJson)).toMatchObject({ $truncated: true, name: "big", purl: "pkg:npm/big@1" });
    expect(JSON.parse(component!.rawJson)).not.toHaveProperty("description");
    expect(Buffer.byteLength(component!.rawJson)).toBeLessThanOrEqual(1000);
  });
});
