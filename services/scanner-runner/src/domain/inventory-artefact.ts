// The inventory artefact (docs/scanner-runner.md, proto/sca/projects/v1/inventory.proto): what the SBOM reader
// found, as a size-delimited stream of InventoryRecord: the document first, then the components, then the edges.
// projects ingests it from the artefact store; Kafka and the RPC only carry its reference.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { sizeDelimitedEncode } from "@bufbuild/protobuf/wire";
import {
  InventoryComponentSchema,
  InventoryDocumentSchema,
  InventoryEdgeSchema,
  InventoryRecordSchema,
  type InventoryComponent,
  type InventoryRecord,
} from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import type { DependencyScope, SbomComponent, SbomInventory } from "./sbom/inventory.ts";

export interface InventoryArtefactOptions {
  /**
   * SCAN_SCOPE_FILTER_ENABLED: drop the components the document marks as non-runtime (`excluded`) and the edges
   * touching them. Off, they stay, with no dependency_scope.
   */
  scopeFilter: boolean;
}

export interface InventoryArtefact {
  bytes: Uint8Array;
  componentCount: number;
  edgeCount: number;
}

/** The spec's dependency_scope: required or optional; excluded and unknown are absent. */
const specScope = (scope: DependencyScope | null): string | undefined =>
  scope === "required" || scope === "optional" ? scope : undefined;

const orAbsent = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

function componentOf(c: SbomComponent): InventoryComponent {
  return create(InventoryComponentSchema, {
    key: c.key,
    bomRefs: c.refs,
    type: orAbsent(c.type),
    group: orAbsent(c.group),
    name: c.name,
    version: orAbsent(c.version),
    purl: orAbsent(c.purl),
    cpe: orAbsent(c.cpe),
    hashes: c.hashes.map((h) => ({ algorithm: h.algorithm, value: h.value })),
    declaredLicense: orAbsent(c.declaredLicense),
    concludedLicense: orAbsent(c.concludedLicense),
    licenseIds: c.licenseIds,
    supplier: orAbsent(c.supplier),
    author: orAbsent(c.author),
    description: orAbsent(c.description),
    direct: orAbsent(c.direct),
    depth: orAbsent(c.depth),
    dependencyScope: specScope(c.scope),
    rawData: Buffer.from(JSON.stringify(c.rawData), "utf8"),
  });
}

function createdAtOf(text: string | null) {
  if (!text) return undefined;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? undefined : timestampFromDate(at);
}

/** The records of the artefact, in their order. */
export function inventoryRecords(inventory: SbomInventory, opts: InventoryArtefactOptions): InventoryRecord[] {
  const { document } = inventory;
  const components = opts.scopeFilter
    ? inventory.components.filter((c) => c.scope !== "excluded")
    : inventory.components;
  const kept = new Set(components.map((c) => c.key));
  const edges = inventory.dependencies.filter((e) => kept.has(e.to) && (e.from === null || kept.has(e.from)));
  const record = (r: InventoryRecord["record"]) => create(InventoryRecordSchema, { record: r });
  return [
    record({
      case: "document",
      value: create(InventoryDocumentSchema, {
        format: document.format,
        specVersion: document.specVersion,
        serialNumber: orAbsent(document.serialNumber),
        bomVersion: orAbsent(document.bomVersion),
        name: orAbsent(document.name),
        createdAt: createdAtOf(document.createdAt),
        tools: document.tools,
        primaryComponent: document.primaryComponent ? componentOf(document.primaryComponent) : undefined,
        release: orAbsent(document.release),
        declaredComponentCount: inventory.declaredComponentCount,
        graphRooted: inventory.graph.rooted,
        warnings: inventory.warnings.map((w) => ({ ...w })),
      }),
    }),
    ...components.map((c) => record({ case: "component", value: componentOf(c) })),
    ...edges.map((e) =>
      record({
        case: "edge",
        value: create(InventoryEdgeSchema, { from: orAbsent(e.from), to: e.to, scope: specScope(e.scope) }),
      }),
    ),
  ];
}

/** The artefact's bytes, with the counts it holds. */
export function encodeInventoryArtefact(inventory: SbomInventory, opts: InventoryArtefactOptions): InventoryArtefact {
  const records = inventoryRecords(inventory, opts);
  const parts = records.map((r) => sizeDelimitedEncode(InventoryRecordSchema, r));
  const bytes = Buffer.concat(parts);
  const count = (kind: "component" | "edge") => records.filter((r) => r.record.case === kind).length;
  return { bytes, componentCount: count("component"), edgeCount: count("edge") };
}
