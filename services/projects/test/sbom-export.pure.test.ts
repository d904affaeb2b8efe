// The SBOM export's pure rules: formats and names, the mapping of inventory rows to CycloneDX 1.6 and SPDX 2.3
// objects, XML text, and whole documents from the writers checked against the official CycloneDX schemas.
import { describe, expect, it } from "@jest/globals";
import { cdxComponentOf, cdxHashesOf, cdxLicensesOf, cdxTypeOf } from "../src/domain/sbom-export/cyclonedx.ts";
import {
  compareCodePoints,
  documentUuidOf,
  heldSnapshotRows,
  SBOM_MEDIA_TYPES,
  sbomFileName,
  sbomFormatOf,
  sbomRootOf,
  sbomWriterOf,
  rootRefCandidate,
  type SbomComponent,
  type SbomDocumentFacts,
  type SbomIdentity,
  type SbomEdgeTarget,
  type SbomFormat,
  type SbomWriter,
} from "../src/domain/sbom-export/index.ts";
import {
  spdxChecksumsOf,
  spdxCreated,
  spdxCurrentExpression,
  spdxPackageOf,
  spdxPurposeOf,
  spdxRelationshipOf,
} from "../src/domain/sbom-export/spdx.ts";
import { xmlAttribute, xmlText } from "../src/domain/sbom-export/xml-text.ts";
import { wellFormedCpe } from "../src/domain/sbom-export/cpe.ts";
import type { FieldViolation } from "@sca/problem";
import { cyclonedxJsonErrors, cyclonedxXmlErrors } from "./support/sbom-validators.ts";

const SHA1 = "a".repeat(40);
const SHA256 = "B".repeat(64);

function component(over: Partial<SbomComponent> = {}): SbomComponent {
  return {
    componentId: "0b6c5d3e-6f51-5a4e-9d2c-1f0e7a6b5c4d",
    key: "pkg:npm/left-pad@1.3.0",
    type: "library",
    group: null,
    name: "left-pad",
    version: "1.3.0",
    purl: "pkg:npm/left-pad@1.3.0",
    cpe: null,
    hashes: [],
    declaredLicense: null,
    concludedLicense: null,
    licenseIds: [],
    supplier: null,
    author: null,
    description: null,
    dependencyScope: null,
    ...over,
  };
}

describe("formats", () => {
  it("defaults to cyclonedx-json and names the accepted values for an unknown one", () => {
    const v: FieldViolation[] = [];
    expect(sbomFormatOf("", v)).toBe("cyclonedx-json");
    expect(sbomFormatOf("spdx-json", v)).toBe("spdx-json");
    expect(v).toEqual([]);
    sbomFormatOf("spdx-tag-value", v);
    expect(v).toEqual([{ path: "query.format", message: "must be one of cyclonedx-json, cyclonedx-xml, spdx-json" }]);
  });

  it("has the media types and file names of each format", () => {
    expect(SBOM_MEDIA_TYPES).toEqual({
      "cyclonedx-json": "application/vnd.cyclonedx+json; version=1.6",
      "cyclonedx-xml": "application/vnd.cyclonedx+xml; version=1.6",
      "spdx-json": "application/spdx+json",
    });
    expect(sbomFileName("shop", "cyclonedx-json")).toBe("sbom-shop.cdx.json");
    expect(sbomFileName("shop", "cyclonedx-xml")).toBe("sbom-shop.cdx.xml");
    expect(sbomFileName("shop", "spdx-json")).toBe("sbom-shop.spdx.json");
  });

  it("derives the document's UUID (v5) from the scan id alone", () => {
    const id = documentUuidOf("2f0e8a4c-1b7d-4e2a-9c3f-5d6e7f809a1b");
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(documentUuidOf("2F0E8A4C-1B7D-4E2A-9C3F-5D6E7F809A1B")).toBe(id);
    expect(documentUuidOf("2f0e8a4c-1b7d-4e2a-9c3f-5d6e7f809a1c")).not.toBe(id);
  });
});

describe("the root", () => {
  const primary = {
    primaryComponentName: "shop",
    primaryComponentVersion: "2.0",
    primaryComponentPurl: "pkg:npm/shop@2.0",
    documentName: "shop",
    release: "r2",
  };
  const idOf = (key: string) => `id:${key}`;

  it("is the primary component, its purl the ref", () => {
    expect(sbomRootOf(primary, "slug", idOf, false)).toEqual({
      ref: "pkg:npm/shop@2.0",
      componentId: "id:pkg:npm/shop@2.0",
      name: "shop",
      version: "2.0",
      purl: "pkg:npm/shop@2.0",
    });
  });

  it("is named after the document, else the slug, when the SBOM had no primary component", () => {
    const none = { ...primary, primaryComponentName: null, primaryComponentVersion: null, primaryComponentPurl: null };
    expect(sbomRootOf(none, "slug", idOf, false)).toMatchObject({ name: "shop", version: "r2", purl: null });
    expect(sbomRootOf({ ...none, documentName: null }, "slug", idOf, false)).toMatchObject({
      name: "slug",
      ref: "component:application//slug@r2",
    });
  });

  it("never shares a component's ref", () => {
    expect(rootRefCandidate(primary, "slug")).toBe("pkg:npm/shop@2.0");
    expect(sbomRootOf(primary, "slug", idOf, true).ref).toBe("pkg:npm/shop@2.0#root");
  });
});

describe("CycloneDX mapping", () => {
  it("writes one SPDX id as license.id, with each acknowledgement", () => {
    expect(cdxLicensesOf("MIT", null)).toEqual([{ license: { id: "MIT", acknowledgement: "declared" } }]);
    expect(cdxLicensesOf("MIT", "Apache-2.0")).toEqual([
      { license: { id: "MIT", acknowledgement: "declared" } },
      { license: { id: "Apache-2.0", acknowledgement: "concluded" } },
    ]);
  });

  it("writes anything else as one expression, the concluded one first", () => {
    expect(cdxLicensesOf("MIT OR Apache-2.0", null)).toEqual([
      { expression: "MIT OR Apache-2.0", acknowledgement: "declared" },
    ]);
    expect(cdxLicensesOf("LicenseRef-Custom", null)).toEqual([
      { expression: "LicenseRef-Custom", acknowledgement: "declared" },
    ]);
    expect(cdxLicensesOf("MIT", "MIT AND BSD-3-Clause")).toEqual([
      { expression: "MIT AND BSD-3-Clause", acknowledgement: "concluded" },
    ]);
    expect(cdxLicensesOf(null, null)).toEqual([]);
  });

  it("keeps the hashes 1.6 accepts, sorted and once each", () => {
    expect(
      cdxHashesOf([
        { algorithm: "SHA-256", value: SHA256 },
        { algorithm: "SHA-1", value: SHA1 },
        { algorithm: "SHA-1", value: SHA1 },
        { algorithm: "ADLER32", value: "0a1b2c3d" },
        { algorithm: "SHA-256", value: "abc" },
      ]),
    ).toEqual([
      { alg: "SHA-1", content: SHA1 },
      { alg: "SHA-256", content: SHA256.toLowerCase() },
    ]);
  });

  it("writes a type 1.6 does not know as library", () => {
    expect(cdxTypeOf("framework")).toBe("framework");
    expect(cdxTypeOf("source")).toBe("library");
    expect(cdxTypeOf(null)).toBe("library");
  });

  it("maps every field, in the schema's order", () => {
    const c = cdxComponentOf(
      component({
        group: "org.example",
        cpe: "cpe:2.3:a:example:left-pad:1.3.0:*:*:*:*:*:*:*",
        supplier: "Example Inc.",
        author: "Jane",
        description: "Pads",
        dependencyScope: "optional",
        declaredLicense: "MIT",
        hashes: [{ algorithm: "SHA-1", value: SHA1 }],
      }),
    );
    expect(Object.keys(c)).toEqual([
      "type",
      "bom-ref",
      "supplier",
      "authors",
      "group",
      "name",
      "version",
      "description",
      "scope",
      "hashes",
      "licenses",
      "cpe",
      "purl",
    ]);
    expect(c).toMatchObject({ supplier: { name: "Example Inc." }, authors: [{ name: "Jane" }], scope: "optional" });
  });
});

describe("SPDX mapping", () => {
  it("maps checksums to SPDX's algorithms, dropping values of the wrong length", () => {
    expect(
      spdxChecksumsOf([
        { algorithm: "SHA-256", value: SHA256 },
        { algorithm: "SHA-1", value: SHA1 },
        { algorithm: "MD5", value: "abc" },
        { algorithm: "XXH64", value: "0123456789abcdef" },
      ]),
    ).toEqual([
      { algorithm: "SHA1", checksumValue: SHA1 },
      { algorithm: "SHA256", checksumValue: SHA256.toLowerCase() },
    ]);
  });

  it("writes NOASSERTION for unknown licenses, purl and cpe as external refs", () => {
    const p = spdxPackageOf(component({ cpe: "cpe:/a:example:left-pad:1.3.0", supplier: "Example" }));
    expect(p).toMatchObject({
      SPDXID: "SPDXRef-Package-0b6c5d3e-6f51-5a4e-9d2c-1f0e7a6b5c4d",
      licenseConcluded: "NOASSERTION",
      licenseDeclared: "NOASSERTION",
      supplier: "Organization: Example",
      filesAnalyzed: false,
      primaryPackagePurpose: "LIBRARY",
      externalRefs: [
        {
          referenceCategory: "SECURITY",
          referenceType: "cpe22Type",
          referenceLocator: "cpe:/a:example:left-pad:1.3.0",
        },
        { referenceCategory: "PACKAGE-MANAGER", referenceType: "purl", referenceLocator: "pkg:npm/left-pad@1.3.0" },
      ],
    });
    expect(spdxPurposeOf("machine-learning-model")).toBe("OTHER");
    expect(spdxPurposeOf(null)).toBeUndefined();
  });

  it("keeps an edge's scope in the relationship type", () => {
    const to = (scope: string | null): SbomEdgeTarget => ({ componentId: "b", key: "k", scope });
    expect(spdxRelationshipOf("SPDXRef-A", to(null))).toEqual({
      spdxElementId: "SPDXRef-A",
      relatedSpdxElement: "SPDXRef-Package-b",
      relationshipType: "DEPENDS_ON",
    });
    expect(spdxRelationshipOf("SPDXRef-A", to("required")).relationshipType).toBe("RUNTIME_DEPENDENCY_OF");
    expect(spdxRelationshipOf("SPDXRef-A", to("optional"))).toEqual({
      spdxElementId: "SPDXRef-Package-b",
      relatedSpdxElement: "SPDXRef-A",
      relationshipType: "OPTIONAL_DEPENDENCY_OF",
    });
  });

  it("writes the current form of the deprecated GPL-with-exception ids", () => {
    expect(spdxCurrentExpression("CDDL-1.1 AND GPL-2.0-with-classpath-exception")).toBe(
      "CDDL-1.1 AND GPL-2.0-only WITH Classpath-exception-2.0",
    );
    expect(spdxCurrentExpression("(MIT OR GPL-3.0-with-GCC-exception)")).toBe(
      "(MIT OR GPL-3.0-only WITH GCC-exception-3.1)",
    );
    expect(spdxCurrentExpression("GPL-2.0-only")).toBe("GPL-2.0-only");
  });

  it("writes dates to the second, in UTC", () => {
    expect(spdxCreated(new Date("2026-11-24T08:01:02.345Z"))).toBe("2026-11-24T08:01:02Z");
  });
});

describe("CPE names", () => {
  it("keeps well-formed names, quotes what a 2.3 name may not carry bare, drops the rest", () => {
    expect(wellFormedCpe("cpe:2.3:a:apache:tomcat:9.0:*:*:*:*:*:*:*")).toBe(
      "cpe:2.3:a:apache:tomcat:9.0:*:*:*:*:*:*:*",
    );
    expect(wellFormedCpe("cpe:/a:apache:tomcat:9.0")).toBe("cpe:/a:apache:tomcat:9.0");
    expect(wellFormedCpe("cpe:2.3:a:golang:x/crypto:v0.1.0+incompatible:*:*:*:*:*:*:*")).toBe(
      "cpe:2.3:a:golang:x\\/crypto:v0.1.0\\+incompatible:*:*:*:*:*:*:*",
    );
    expect(wellFormedCpe("cpe:2.3:a:short")).toBeNull();
    expect(wellFormedCpe("cpe:/a:with space")).toBeNull();
    expect(wellFormedCpe(null)).toBeNull();
  });
});

describe("XML text", () => {
  it("escapes markup and drops what XML 1.0 cannot carry", () => {
    expect(xmlText("a<b>&c\u0001\uFFFF\uD800d")).toBe("a&lt;b&gt;&amp;cd");
    expect(xmlAttribute('say "hi"\n')).toBe("say &quot;hi&quot;&#10;");
  });
});

// A small snapshot with every case the mapping knows, written whole by each writer.
const components: SbomComponent[] = [
  component({
    componentId: "11111111-1111-5111-8111-111111111111",
    key: "component:library/org.example/plain@1",
    purl: null,
    group: "org.example",
    name: 'plain <&> "quoted" \u0007',
    version: "1",
    declaredLicense: "MIT OR Apache-2.0",
    concludedLicense: "LicenseRef-Custom-1.0",
    licenseIds: ["Apache-2.0", "LicenseRef-Custom-1.0", "MIT"],
    type: "source",
  }),
  component({
    componentId: "22222222-2222-5222-8222-222222222222",
    hashes: [
      { algorithm: "SHA-256", value: SHA256 },
      { algorithm: "SHA-1", value: SHA1 },
    ],
    declaredLicense: "MIT",
    concludedLicense: "MIT",
    licenseIds: ["MIT"],
    supplier: "Left & Co",
    author: "Jane",
    description: "pads\nstrings",
    cpe: "cpe:2.3:a:left:pad:1.3.0:*:*:*:*:*:*:*",
    dependencyScope: "required",
  }),
];
const edges = new Map<string | null, SbomEdgeTarget[]>([
  [null, [{ componentId: components[1]!.componentId, key: components[1]!.key, scope: null }]],
  [components[1]!.key, [{ componentId: components[0]!.componentId, key: components[0]!.key, scope: "optional" }]],
]);

function documentOf(format: SbomFormat, hasGraph = true, identity?: SbomIdentity): string {
  const facts: SbomDocumentFacts = {
    scanId: "2f0e8a4c-1b7d-4e2a-9c3f-5d6e7f809a1b",
    ingestedAt: new Date("2026-11-24T08:01:02.345Z"),
    root: {
      ref: "pkg:npm/shop@2.0",
      componentId: "33333333-3333-5333-8333-333333333333",
      name: "shop",
      version: "2.0",
      purl: "pkg:npm/shop@2.0",
    },
    sourceFormat: "spdx-json",
    sourceSpecVersion: "2.3",
    hasGraph,
    ...(identity ? { identity } : {}),
  };
  const w: SbomWriter = sbomWriterOf(format, facts);
  let out = w.begin();
  for (const c of components) out += w.component(c);
  out += w.endComponents();
  if (hasGraph) {
    out += w.dependencies(null, edges.get(null)!);
    for (const c of components) out += w.dependencies(c, edges.get(c.key) ?? []);
  }
  return out + w.end();
}

describe("whole documents", () => {
  it("CycloneDX JSON is valid 1.6 with and without a graph", async () => {
    for (const graph of [true, false]) {
      const text = documentOf("cyclonedx-json", graph);
      expect(await cyclonedxJsonErrors(text)).toBeNull();
      const bom = JSON.parse(text) as Record<string, unknown>;
      expect(bom).toMatchObject({
        bomFormat: "CycloneDX",
        specVersion: "1.6",
        serialNumber: `urn:uuid:${documentUuidOf("2f0e8a4c-1b7d-4e2a-9c3f-5d6e7f809a1b")}`,
        metadata: { timestamp: "2026-11-24T08:01:02.345Z", component: { "bom-ref": "pkg:npm/shop@2.0" } },
      });
      expect(bom.dependencies).toEqual(
        graph
          ? [
              { ref: "pkg:npm/shop@2.0", dependsOn: ["pkg:npm/left-pad@1.3.0"] },
              { ref: "component:library/org.example/plain@1" },
              { ref: "pkg:npm/left-pad@1.3.0", dependsOn: ["component:library/org.example/plain@1"] },
            ]
          : undefined,
      );
    }
  });

  it("CycloneDX XML is valid 1.6 with and without a graph, and says what the JSON says", async () => {
    for (const graph of [true, false]) expect(await cyclonedxXmlErrors(documentOf("cyclonedx-xml", graph))).toBeNull();
    const xml = documentOf("cyclonedx-xml");
    expect(xml).toContain('<expression acknowledgement="concluded">LicenseRef-Custom-1.0</expression>');
    expect(xml).toContain('<license acknowledgement="declared">');
    expect(xml).toContain('<name>plain &lt;&amp;&gt; "quoted" </name>');
  });

  it("carries SBOM_AUTHOR and SERVICE_VERSION in valid 1.6 metadata, JSON and XML", async () => {
    const identity = { author: "Supply <Chain> Team", toolVersion: "4.5.6" };
    const text = documentOf("cyclonedx-json", true, identity);
    expect(await cyclonedxJsonErrors(text)).toBeNull();
    expect((JSON.parse(text) as { metadata: unknown }).metadata).toMatchObject({
      tools: { components: [{ type: "application", name: "sca-portal", version: "4.5.6" }] },
      authors: [{ name: "Supply <Chain> Team" }],
    });
    const xml = documentOf("cyclonedx-xml", true, identity);
    expect(await cyclonedxXmlErrors(xml)).toBeNull();
    expect(xml).toContain("<version>4.5.6</version>");
    expect(xml).toContain("<authors>\n      <author>\n        <name>Supply &lt;Chain&gt; Team</name>");
    // No author: none written, and no version without an identity.
    const anonymous = JSON.parse(documentOf("cyclonedx-json", true, { author: null, toolVersion: "1" })) as {
      metadata: Record<string, unknown>;
    };
    expect(anonymous.metadata.authors).toBeUndefined();
    const plain = JSON.parse(documentOf("cyclonedx-json")) as {
      metadata: { tools: { components: { version?: string }[] } };
    };
    expect(plain.metadata.tools.components[0]!.version).toBeUndefined();
  });

  it("carries SBOM_AUTHOR and SERVICE_VERSION in SPDX's creators", () => {
    const creatorsOf = (identity?: SbomIdentity) =>
      (JSON.parse(documentOf("spdx-json", true, identity)) as { creationInfo: { creators: string[] } }).creationInfo
        .creators;
    expect(creatorsOf({ author: "Supply <Chain> Team", toolVersion: "4.5.6" })).toEqual([
      "Person: Supply <Chain> Team",
      "Tool: sca-portal-4.5.6",
    ]);
    expect(creatorsOf({ author: null, toolVersion: "4.5.6" })).toEqual(["Tool: sca-portal-4.5.6"]);
    expect(creatorsOf()).toEqual(["Tool: sca-portal"]);
  });

  it("a broken document fails the same validators", async () => {
    expect(
      await cyclonedxJsonErrors(documentOf("cyclonedx-json").replace('"library"', '"no-such-type"')),
    ).not.toBeNull();
    expect(await cyclonedxXmlErrors(documentOf("cyclonedx-xml").replace("<scope>", "<scopes>"))).not.toBeNull();
  });

  it("SPDX JSON declares its LicenseRefs and describes the root", () => {
    const doc = JSON.parse(documentOf("spdx-json")) as Record<string, unknown>;
    expect(doc).toMatchObject({
      spdxVersion: "SPDX-2.3",
      creationInfo: { created: "2026-11-24T08:01:02Z", creators: ["Tool: sca-portal"] },
      hasExtractedLicensingInfos: [{ licenseId: "LicenseRef-Custom-1.0" }],
    });
    expect((doc.packages as unknown[]).length).toBe(3);
    expect(doc.relationships).toEqual([
      {
        spdxElementId: "SPDXRef-DOCUMENT",
        relatedSpdxElement: "SPDXRef-Package-33333333-3333-5333-8333-333333333333",
        relationshipType: "DESCRIBES",
      },
      {
        spdxElementId: "SPDXRef-Package-33333333-3333-5333-8333-333333333333",
        relatedSpdxElement: "SPDXRef-Package-22222222-2222-5222-8222-222222222222",
        relationshipType: "DEPENDS_ON",
      },
      {
        spdxElementId: "SPDXRef-Package-11111111-1111-5111-8111-111111111111",
        relatedSpdxElement: "SPDXRef-Package-22222222-2222-5222-8222-222222222222",
        relationshipType: "OPTIONAL_DEPENDENCY_OF",
      },
    ]);
  });
});

describe("rows held in memory (the copy kept for signing)", () => {
  it("orders keys as PostgreSQL's C collation does: by UTF-8 bytes, not UTF-16 units", () => {
    const keys = [
      "pkg:npm/b",
      "pkg:npm/a\u{1F600}",
      "pkg:npm/a\uFF5E",
      "pkg:npm/a",
      "pkg:npm/A",
      "pkg:npm/a-b",
      "pkg:npm/ä",
    ];
    const byBytes = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect([...keys].sort(compareCodePoints)).toEqual(byBytes);
    // The one place UTF-16 order differs: a code point past U+FFFF sorts after U+FF5E.
    expect(byBytes.indexOf("pkg:npm/a\u{1F600}")).toBeGreaterThan(byBytes.indexOf("pkg:npm/a\uFF5E"));
    expect(compareCodePoints("x", "x")).toBe(0);
  });

  it("serves components and each depender's targets in key order, the root's edges apart", async () => {
    const row = (id: string, key: string) => ({ ...component({ key, componentId: `c-${id}` }), id });
    const rows = heldSnapshotRows(
      [row("1", "pkg:npm/c"), row("2", "pkg:npm/a"), row("3", "pkg:npm/b")],
      [
        { fromComponentId: "1", toComponentId: "3", scope: null },
        { fromComponentId: "1", toComponentId: "2", scope: "optional" },
        { fromComponentId: null, toComponentId: "1", scope: "required" },
      ],
    );
    const pages = [];
    for await (const page of rows.componentPages()) pages.push(page.map((c) => c.key));
    expect(pages).toEqual([["pkg:npm/a", "pkg:npm/b", "pkg:npm/c"]]);
    expect(await rows.rootEdges()).toEqual([{ componentId: "c-1", key: "pkg:npm/c", scope: "required" }]);
    const edges = await rows.edgesFrom(["1", "2"]);
    expect(edges.get("1")).toEqual([
      { componentId: "c-2", key: "pkg:npm/a", scope: "optional" },
      { componentId: "c-3", key: "pkg:npm/b", scope: null },
    ]);
    expect(edges.has("2")).toBe(false);
  });
});
