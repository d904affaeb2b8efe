// What reading an SBOM yields, whatever its format: the document's own facts, the components de-duplicated by
// identity, the dependency edges between them and what follows from the graph (direct, depth, scope).

export type SbomFormat = "cyclonedx-json" | "cyclonedx-xml" | "spdx-json" | "spdx-tag-value" | "spdx3-jsonld";

/**
 * Where a component sits in the lifecycle. `required` and `optional` are the spec's dependency_scope values;
 * `excluded` is a non-runtime dependency (CycloneDX `excluded`; SPDX test/build/dev dependencies and tools) that
 * SCAN_SCOPE_FILTER_ENABLED drops before persist; null means the document does not say.
 */
export type DependencyScope = "required" | "optional" | "excluded";

export interface ComponentHash {
  /** CycloneDX spelling: MD5, SHA-1, SHA-256, SHA-384, SHA-512, SHA3-256, BLAKE2b-256, BLAKE3, ... */
  algorithm: string;
  /** Lower-case hex. */
  value: string;
}

export interface SbomComponent {
  /** Identity within the inventory: the canonical purl, else `component:<type>/<group>/<name>@<version>`. */
  key: string;
  /** Every bom-ref or SPDXID that named this component in the document (first occurrence first). */
  refs: string[];
  /** CycloneDX component type (library, application, container, file, ...); SPDX primary purpose, lower case. */
  type: string | null;
  group: string | null;
  name: string;
  version: string | null;
  /** Canonical purl (packageurl-js), null when absent or unparsable (the original stays in rawJson). */
  purl: string | null;
  cpe: string | null;
  hashes: ComponentHash[];
  /** Declared license as one normalised SPDX expression (several declared entries are joined with AND). */
  declaredLicense: string | null;
  /** Concluded license (SPDX licenseConcluded, CycloneDX acknowledgement `concluded`), normalised. */
  concludedLicense: string | null;
  /** Every license id or LicenseRef named by the two expressions, sorted, without duplicates. */
  licenseIds: string[];
  supplier: string | null;
  author: string | null;
  description: string | null;
  scope: DependencyScope | null;
  /** True when the primary component depends on it directly; null when the document has no rooted graph. */
  direct: boolean | null;
  /** Shortest path length from the primary component (direct = 1); null when unreachable or no rooted graph. */
  depth: number | null;
  /** The component as the document wrote it, as JSON text of at most rawDataMaxBytes (UTF-8). */
  rawJson: string;
}

/** A dependency edge between two inventory components (keys); `from` null is the primary component. */
export interface DependencyEdge {
  from: string | null;
  to: string;
  scope: DependencyScope | null;
}

export interface SbomDocumentFacts {
  format: SbomFormat;
  /** As the document states it: "1.4" (CycloneDX), "2.3" (SPDX 2), "3.0.1" (SPDX 3). */
  specVersion: string;
  /** CycloneDX serialNumber, SPDX 2 documentNamespace, SPDX 3 SpdxDocument id. */
  serialNumber: string | null;
  /** CycloneDX BOM version (an integer); null elsewhere. */
  bomVersion: number | null;
  /** SPDX document name; the primary component's name for CycloneDX. */
  name: string | null;
  createdAt: string | null;
  /** Tools that wrote the document, "vendor name version" or SPDX "Tool: x" creators. */
  tools: string[];
  /** What the SBOM describes (CycloneDX metadata.component; SPDX the single described package). */
  primaryComponent: SbomComponent | null;
  /** The primary component's version: a default for the scan's release label when metadata.release is absent. */
  release: string | null;
}

export interface DependencyGraphFacts {
  /** A primary component with at least one outgoing edge: direct and depth are known. */
  rooted: boolean;
  edgeCount: number;
  directCount: number;
  /** Longest shortest path from the primary component; 0 when not rooted. */
  maxDepth: number;
  /** Components that lie on a dependency cycle (strongly connected with another, or depending on themselves). */
  componentsInCycles: number;
}

export interface SbomWarning {
  code: string;
  message: string;
  /** How many times this happened; the message describes the first few (examples). */
  count: number;
  examples: string[];
}

export interface SbomInventory {
  document: SbomDocumentFacts;
  components: SbomComponent[];
  dependencies: DependencyEdge[];
  graph: DependencyGraphFacts;
  /** Component entries the document declared (nested ones included, the primary component excluded). */
  declaredComponentCount: number;
  warnings: SbomWarning[];
}

/**
 * The raw_data property naming how the runner found a component the SBOM did not list: `fingerprint` (the tree's
 * files' fingerprints, docs/fingerprint.md), `go.mod` (Go's standard library and toolchain, docs/source-scans.md).
 */
export const COMPONENT_SOURCE_PROPERTY = "sca:component:source";

/**
 * Adds components the runner found beside the SBOM to the inventory, in place: those whose key the inventory does not
 * already hold (the document listed them: not added twice). Answers how many were added.
 */
export function addComponents(inventory: SbomInventory, components: readonly SbomComponent[]): number {
  const keys = new Set(inventory.components.map((c) => c.key));
  const added = components.filter((c) => !keys.has(c.key));
  inventory.components.push(...added);
  return added.length;
}

/** What a component's raw_data reads once released: nothing of the document (see releaseRawData). */
const RELEASED_RAW_JSON = "{}";

/**
 * Drops every component's raw_data from the inventory in memory, once the inventory artefact holding it is written:
 * what a scan does after (matching, the states, the license lookup by purl) needs the identities only, and raw_data
 * is about half of a large inventory's heap. Writing the artefact again after this would lose it.
 */
export function releaseRawData(inventory: SbomInventory): void {
  for (const component of inventory.components) component.rawJson = RELEASED_RAW_JSON;
  const primary = inventory.document.primaryComponent;
  if (primary) primary.rawJson = RELEASED_RAW_JSON;
}
