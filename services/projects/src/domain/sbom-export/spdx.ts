// SPDX 2.3 JSON from the inventory: a package per component (SPDXIDs from the component ids, so the same component
// has the same SPDXID in every export), the root package the document DESCRIBES, and a relationship per edge.
import {
  documentUuidOf,
  SPDX_VERSION,
  type SbomComponent,
  type SbomDocumentFacts,
  type SbomEdgeTarget,
  type SbomRoot,
} from "./export-format.ts";
import { wellFormedCpe } from "./cpe.ts";
import { TOOL_NAME } from "./cyclonedx.ts";
import type { SbomWriter } from "./sbom-writer.ts";

const NOASSERTION = "NOASSERTION";

/** The inventory's algorithm (CycloneDX spelling) to SPDX 2.3's, with the hex length it must have (0: any). */
const CHECKSUM_ALGORITHMS: Record<string, [string, number]> = {
  MD2: ["MD2", 32],
  MD4: ["MD4", 32],
  MD5: ["MD5", 32],
  MD6: ["MD6", 0],
  "SHA-1": ["SHA1", 40],
  "SHA-224": ["SHA224", 56],
  "SHA-256": ["SHA256", 64],
  "SHA-384": ["SHA384", 96],
  "SHA-512": ["SHA512", 128],
  "SHA3-256": ["SHA3-256", 64],
  "SHA3-384": ["SHA3-384", 96],
  "SHA3-512": ["SHA3-512", 128],
  "BLAKE2b-256": ["BLAKE2b-256", 64],
  "BLAKE2b-384": ["BLAKE2b-384", 96],
  "BLAKE2b-512": ["BLAKE2b-512", 128],
  BLAKE3: ["BLAKE3", 0],
  ADLER32: ["ADLER32", 8],
};

/** CycloneDX-style types (and SPDX purposes read in lower case) to primaryPackagePurpose. */
const PURPOSES: Record<string, string> = {
  application: "APPLICATION",
  framework: "FRAMEWORK",
  library: "LIBRARY",
  container: "CONTAINER",
  "operating-system": "OPERATING-SYSTEM",
  device: "DEVICE",
  firmware: "FIRMWARE",
  file: "FILE",
  source: "SOURCE",
  archive: "ARCHIVE",
  install: "INSTALL",
};

export function spdxIdOf(componentId: string): string {
  return `SPDXRef-Package-${componentId}`;
}

export function spdxPurposeOf(type: string | null): string | undefined {
  if (type === null) return undefined;
  return PURPOSES[type] ?? "OTHER";
}

export function spdxChecksumsOf(hashes: SbomComponent["hashes"]): { algorithm: string; checksumValue: string }[] {
  const seen = new Set<string>();
  const out: { algorithm: string; checksumValue: string }[] = [];
  for (const h of hashes) {
    const known = CHECKSUM_ALGORITHMS[h.algorithm];
    const value = h.value.toLowerCase();
    if (!known || !/^[0-9a-f]+$/.test(value) || (known[1] && value.length !== known[1])) continue;
    const id = `${known[0]}\n${value}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ algorithm: known[0], checksumValue: value });
  }
  return out.sort((a, b) => compare(a.algorithm, b.algorithm) || compare(a.checksumValue, b.checksumValue));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A CPE 2.3 formatted string, else a 2.2 URI. */
const cpeType = (cpe: string) => (cpe.startsWith("cpe:2.3:") ? "cpe23Type" : "cpe22Type");

/**
 * License ids the SPDX list deprecated for an id WITH an exception: SPDX's tools read them as exceptions used
 * without WITH, so the export writes the current form (the SPDX list's own replacements).
 */
const DEPRECATED_WITH_IDS: Record<string, string> = {
  "GPL-2.0-with-autoconf-exception": "GPL-2.0-only WITH Autoconf-exception-2.0",
  "GPL-2.0-with-bison-exception": "GPL-2.0-or-later WITH Bison-exception-2.2",
  "GPL-2.0-with-classpath-exception": "GPL-2.0-only WITH Classpath-exception-2.0",
  "GPL-2.0-with-font-exception": "GPL-2.0-only WITH Font-exception-2.0",
  "GPL-2.0-with-GCC-exception": "GPL-2.0-only WITH GCC-exception-2.0",
  "GPL-3.0-with-autoconf-exception": "GPL-3.0-only WITH Autoconf-exception-3.0",
  "GPL-3.0-with-GCC-exception": "GPL-3.0-only WITH GCC-exception-3.1",
};

/** The expression with those deprecated ids in their current form (WITH binds tighter than AND and OR). */
export function spdxCurrentExpression(expression: string | null): string | null {
  if (expression === null) return null;
  return expression
    .split(/(\s+|[()])/)
    .map((t) => DEPRECATED_WITH_IDS[t] ?? t)
    .join("");
}

export function spdxPackageOf(c: SbomComponent): Record<string, unknown> {
  const checksums = spdxChecksumsOf(c.hashes);
  const cpe = wellFormedCpe(c.cpe);
  const externalRefs = [
    ...(cpe !== null ? [{ referenceCategory: "SECURITY", referenceType: cpeType(cpe), referenceLocator: cpe }] : []),
    ...(c.purl !== null
      ? [{ referenceCategory: "PACKAGE-MANAGER", referenceType: "purl", referenceLocator: c.purl }]
      : []),
  ];
  const purpose = spdxPurposeOf(c.type);
  return {
    SPDXID: spdxIdOf(c.componentId),
    name: c.name,
    ...(c.version !== null ? { versionInfo: c.version } : {}),
    ...(c.supplier !== null ? { supplier: `Organization: ${c.supplier}` } : {}),
    ...(c.author !== null ? { originator: `Person: ${c.author}` } : {}),
    downloadLocation: NOASSERTION,
    filesAnalyzed: false,
    ...(checksums.length ? { checksums } : {}),
    licenseConcluded: spdxCurrentExpression(c.concludedLicense) ?? NOASSERTION,
    licenseDeclared: spdxCurrentExpression(c.declaredLicense) ?? NOASSERTION,
    copyrightText: NOASSERTION,
    ...(c.description !== null ? { description: c.description } : {}),
    ...(externalRefs.length ? { externalRefs } : {}),
    ...(purpose ? { primaryPackagePurpose: purpose } : {}),
  };
}

export function spdxRootPackageOf(root: SbomRoot): Record<string, unknown> {
  return {
    SPDXID: spdxIdOf(root.componentId),
    name: root.name,
    ...(root.version !== null ? { versionInfo: root.version } : {}),
    downloadLocation: NOASSERTION,
    filesAnalyzed: false,
    licenseConcluded: NOASSERTION,
    licenseDeclared: NOASSERTION,
    copyrightText: NOASSERTION,
    ...(root.purl !== null
      ? { externalRefs: [{ referenceCategory: "PACKAGE-MANAGER", referenceType: "purl", referenceLocator: root.purl }] }
      : {}),
    primaryPackagePurpose: "APPLICATION",
  };
}

/**
 * The relationship an edge becomes: DEPENDS_ON when its scope is unknown; a scoped edge keeps its scope in the type
 * (required: the dependency is a RUNTIME_DEPENDENCY_OF the depender; optional: an OPTIONAL_DEPENDENCY_OF it), the
 * types our reader (and SPDX's own tools) read back as the same scope.
 */
export function spdxRelationshipOf(fromSpdxId: string, to: SbomEdgeTarget): Record<string, string> {
  const target = spdxIdOf(to.componentId);
  if (to.scope === "required")
    return { spdxElementId: target, relatedSpdxElement: fromSpdxId, relationshipType: "RUNTIME_DEPENDENCY_OF" };
  if (to.scope === "optional")
    return { spdxElementId: target, relatedSpdxElement: fromSpdxId, relationshipType: "OPTIONAL_DEPENDENCY_OF" };
  return { spdxElementId: fromSpdxId, relatedSpdxElement: target, relationshipType: "DEPENDS_ON" };
}

/** SPDX's date format: seconds, UTC, no fraction. */
export function spdxCreated(at: Date): string {
  return `${at.toISOString().slice(0, 19)}Z`;
}

export function spdxDocumentNamespaceOf(scanId: string): string {
  return `urn:uuid:${documentUuidOf(scanId)}`;
}

/** The LicenseRef a package names, declared once in hasExtractedLicensingInfos. */
export function spdxExtractedLicenseOf(licenseRef: string): Record<string, string> {
  return {
    licenseId: licenseRef,
    extractedText: `The SBOM this document was made from named the license "${licenseRef.slice("LicenseRef-".length)}" without its text.`,
    name: licenseRef.slice("LicenseRef-".length),
  };
}

const json = (value: unknown) => JSON.stringify(value);

/**
 * creationInfo.creators: the portal as `Tool: name-version` (SPDX's spelling of a tool with SERVICE_VERSION), and
 * SBOM_AUTHOR as a `Person:`, as CycloneDX's metadata.authors (contacts) and a component's author (originator) are.
 */
export function spdxCreatorsOf(facts: SbomDocumentFacts): string[] {
  const version = facts.identity?.toolVersion;
  const author = facts.identity?.author;
  return [...(author ? [`Person: ${author}`] : []), `Tool: ${TOOL_NAME}${version !== undefined ? `-${version}` : ""}`];
}

export function spdxJsonWriter(facts: SbomDocumentFacts): SbomWriter {
  const licenseRefs = new Set<string>();
  let relationships = 0;
  const rootId = spdxIdOf(facts.root.componentId);
  const head = {
    spdxVersion: SPDX_VERSION,
    dataLicense: "CC0-1.0",
    SPDXID: "SPDXRef-DOCUMENT",
    name: facts.root.version !== null ? `${facts.root.name}-${facts.root.version}` : facts.root.name,
    documentNamespace: spdxDocumentNamespaceOf(facts.scanId),
    creationInfo: {
      created: spdxCreated(facts.ingestedAt),
      creators: spdxCreatorsOf(facts),
      comment: `Scan ${facts.scanId}, read from ${`${facts.sourceFormat} ${facts.sourceSpecVersion}`.trim()}.`,
    },
  };
  const relationship = (r: Record<string, string>) => `${relationships++ ? "," : ""}\n${json(r)}`;
  return {
    begin: () => `${json(head).slice(0, -1)},"packages":[\n${json(spdxRootPackageOf(facts.root))}`,
    component(c) {
      for (const id of c.licenseIds) if (id.startsWith("LicenseRef-")) licenseRefs.add(id);
      return `,\n${json(spdxPackageOf(c))}`;
    },
    endComponents() {
      const refs = [...licenseRefs].sort(compare).map(spdxExtractedLicenseOf);
      const extracted = refs.length ? `,"hasExtractedLicensingInfos":[\n${refs.map(json).join(",\n")}\n]` : "";
      const describes = {
        spdxElementId: "SPDXRef-DOCUMENT",
        relatedSpdxElement: rootId,
        relationshipType: "DESCRIBES",
      };
      return `\n]${extracted},"relationships":[${relationship(describes)}`;
    },
    dependencies(from, to) {
      const fromId = from ? spdxIdOf(from.componentId) : rootId;
      return to.map((t) => relationship(spdxRelationshipOf(fromId, t))).join("");
    },
    end: () => "\n]}\n",
  };
}
