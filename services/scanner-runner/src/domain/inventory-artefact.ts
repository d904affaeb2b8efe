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
    rawData: Buffer.from(c.rawJson, "utf8"),
  });
}

function createdAtOf(text: string | null) {
  if (!text) return undefined;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? undefined : timestampFromDate(at);
}

/** The components and edges the artefact keeps (the scope filter applied), before anything is encoded. */
function keptOf(inventory: SbomInventory, opts: InventoryArtefactOptions) {
  const components = opts.scopeFilter
    ? inventory.components.filter((c) => c.scope !== "excluded")
    : inventory.components;
  const kept = new Set(components.map((c) => c.key));
  const edges = inventory.dependencies.filter((e) => kept.has(e.to) && (e.from === null || kept.has(e.from)));
  return { components, edges };
}

/** The records of the artefact, in their order, one at a time. */
export function* inventoryRecords(
  inventory: SbomInventory,
  opts: InventoryArtefactOptions,
): Generator<InventoryRecord> {
  const { document } = inventory;
  const { components, edges } = keptOf(inventory, opts);
  const record = (r: InventoryRecord["record"]) => create(InventoryRecordSchema, { record: r });
  yield record({
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
  });
  for (const c of components) yield record({ case: "component", value: componentOf(c) });
  for (const e of edges)
    yield record({
      case: "edge",
      value: create(InventoryEdgeSchema, { from: orAbsent(e.from), to: e.to, scope: specScope(e.scope) }),
    });
}

/** Records encoded per chunk: written to the store as they are made, so the artefact is never whole in memory. */
const RECORDS_PER_CHUNK = 512;

export interface InventoryArtefactStream {
  componentCount: number;
  edgeCount: number;
  /** The artefact's bytes, a chunk of encoded records at a time (each call starts over). */
  chunks(): Generator<Uint8Array>;
}

export function inventoryArtefactStream(
  inventory: SbomInventory,
  opts: InventoryArtefactOptions,
): InventoryArtefactStream {
  const { components, edges } = keptOf(inventory, opts);
  return {
    componentCount: components.length,
    edgeCount: edges.length,
    *chunks() {
      let parts: Uint8Array[] = [];
      for (const r of inventoryRecords(inventory, opts)) {
        parts.push(sizeDelimitedEncode(InventoryRecordSchema, r));
        if (parts.length === RECORDS_PER_CHUNK) {
          yield Buffer.concat(parts);
          parts = [];
        }
      }
      if (parts.length > 0) yield Buffer.concat(parts);
    },
  };
}

/** The artefact's bytes whole, with the counts it holds (tests and fixtures; the worker streams it). */
export function encodeInventoryArtefact(inventory: SbomInventory, opts: InventoryArtefactOptions): InventoryArtefact {
  const artefact = inventoryArtefactStream(inventory, opts);
  return {
    bytes: Buffer.concat([...artefact.chunks()]),
    componentCount: artefact.componentCount,
    edgeCount: artefact.edgeCount,
  };
}
