// The SBOM export's formats (docs/sbom-export.md): which ones, their media types and file names, and the facts
// every writer shares (the document's identity, its root). Pure: the use case reads the rows and feeds a writer.
import { createHash } from "node:crypto";
import type { FieldViolation } from "@sca/problem";

export const SBOM_FORMATS = ["cyclonedx-json", "cyclonedx-xml", "spdx-json"] as const;
export type SbomFormat = (typeof SBOM_FORMATS)[number];
/** What `format` absent (or empty) means. */
export const SBOM_FORMAT_DEFAULT: SbomFormat = "cyclonedx-json";

export const CYCLONEDX_VERSION = "1.6";
export const SPDX_VERSION = "SPDX-2.3";

export const SBOM_MEDIA_TYPES: Record<SbomFormat, string> = {
  "cyclonedx-json": `application/vnd.cyclonedx+json; version=${CYCLONEDX_VERSION}`,
  "cyclonedx-xml": `application/vnd.cyclonedx+xml; version=${CYCLONEDX_VERSION}`,
  "spdx-json": "application/spdx+json",
};

const EXTENSIONS: Record<SbomFormat, string> = {
  "cyclonedx-json": "cdx.json",
  "cyclonedx-xml": "cdx.xml",
  "spdx-json": "spdx.json",
};

/** The format asked for; empty is the default; anything else is a violation naming the accepted values. */
export function sbomFormatOf(value: string, v: FieldViolation[]): SbomFormat {
  if (value === "") return SBOM_FORMAT_DEFAULT;
  const known = SBOM_FORMATS.find((f) => f === value);
  if (known) return known;
  v.push({ path: "query.format", message: `must be one of ${SBOM_FORMATS.join(", ")}` });
  return SBOM_FORMAT_DEFAULT;
}

/** sbom-<slug>.cdx.json, the name the spec's signing bundle gives the CycloneDX export. */
export function sbomFileName(slug: string, format: SbomFormat): string {
  return `sbom-${slug}.${EXTENSIONS[format]}`;
}

/** RFC 4122 UUIDv5 (SHA-1, name-based): the same name under the same namespace is the same UUID, on any machine. */
export function uuidV5(namespaceHex: string, name: string): string {
  const hash = createHash("sha1").update(Buffer.from(namespaceHex, "hex")).update(name, "utf8").digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// Our own namespace for export documents: a scan's documents have one identity in every format and on every call.
const DOCUMENT_NAMESPACE = "3c0b5a8e9f2d4e71b6a4d2c8e1f07a95";

/** The document's UUID: derived from the scan id alone (CycloneDX serialNumber, SPDX documentNamespace). */
export function documentUuidOf(scanId: string): string {
  return uuidV5(DOCUMENT_NAMESPACE, scanId.toLowerCase());
}

/** A component as the export reads it from the snapshot. */
export interface SbomComponent {
  /** The component's identity across scans (UUIDv5 of its key): the SPDXID's suffix. */
  componentId: string;
  /** The identity within the snapshot (canonical purl, else component:<type>/<group>/<name>@<version>): the bom-ref. */
  key: string;
  type: string | null;
  group: string | null;
  name: string;
  version: string | null;
  purl: string | null;
  cpe: string | null;
  hashes: { algorithm: string; value: string }[];
  declaredLicense: string | null;
  concludedLicense: string | null;
  /** Every license id and LicenseRef of the two expressions. */
  licenseIds: string[];
  supplier: string | null;
  author: string | null;
  description: string | null;
  dependencyScope: "required" | "optional" | null;
}

/** The other end of an edge: a component of the snapshot. */
export interface SbomEdgeTarget {
  componentId: string;
  key: string;
  /** required, optional or null (unknown). */
  scope: string | null;
}

/** What the document says about itself, from the snapshot (never the clock, never the project's mutable fields). */
export interface SbomDocumentFacts {
  scanId: string;
  /** When the snapshot was ingested: the document's timestamp. */
  ingestedAt: Date;
  /** The primary component (metadata.component, the DESCRIBES root). */
  root: SbomRoot;
  /** The SBOM the scan read: its format and spec version. */
  sourceFormat: string;
  sourceSpecVersion: string;
  /** The snapshot has a dependency graph (at least one edge): every component then gets its dependency entry. */
  hasGraph: boolean;
  /** The deployment's SBOM_AUTHOR and SERVICE_VERSION; absent: neither is written. */
  identity?: SbomIdentity;
}

/** What the deployment says about the documents it writes (the spec's SBOM_AUTHOR and SERVICE_VERSION). */
export interface SbomIdentity {
  /** metadata.authors' one name; null when SBOM_AUTHOR is unset. */
  author: string | null;
  /** The version of the tool in metadata.tools. */
  toolVersion: string;
}

export interface SbomRoot {
  /** bom-ref of the root, never one of a component's keys. */
  ref: string;
  /** SPDXID suffix (a UUIDv5 of ref, as component ids are of keys). */
  componentId: string;
  name: string;
  version: string | null;
  purl: string | null;
}

export interface SnapshotPrimary {
  primaryComponentName: string | null;
  primaryComponentVersion: string | null;
  primaryComponentPurl: string | null;
  documentName: string | null;
  release: string | null;
}

function naturalRootRef(
  snapshot: SnapshotPrimary,
  slug: string,
): { name: string; version: string | null; ref: string } {
  const name = snapshot.primaryComponentName ?? snapshot.documentName ?? slug;
  const version = snapshot.primaryComponentName !== null ? snapshot.primaryComponentVersion : snapshot.release;
  const ref =
    snapshot.primaryComponentPurl ??
    `component:application//${encodeURIComponent(name)}@${encodeURIComponent(version ?? "")}`;
  return { name, version, ref };
}

/** The ref the root takes unless a component has it (then `sbomRootOf` is told so). */
export function rootRefCandidate(snapshot: SnapshotPrimary, slug: string): string {
  return naturalRootRef(snapshot, slug).ref;
}

/**
 * The document's root: the snapshot's primary component; a document that named none (an SPDX document describing
 * several packages) gets one named after the document (else the project's slug, which never changes), versioned by
 * the release. `refTaken`: a component of the snapshot has the candidate ref as its key (the reader never keeps
 * one, but refs must stay unique whatever the rows say), so the root's ref gets a `#root` suffix.
 */
export function sbomRootOf(
  snapshot: SnapshotPrimary,
  slug: string,
  componentIdOf: (key: string) => string,
  refTaken: boolean,
): SbomRoot {
  const natural = naturalRootRef(snapshot, slug);
  const ref = refTaken ? `${natural.ref}#root` : natural.ref;
  return {
    ref,
    componentId: componentIdOf(ref),
    name: natural.name,
    version: natural.version,
    purl: snapshot.primaryComponentPurl,
  };
}
