// Reading the inventory artefact (a size-delimited stream of sca.projects.v1.InventoryRecord, docs/inventory.md)
// into the rows of one snapshot: record by record (never the whole file in memory), components de-duplicated by
// key, edges resolved to component ids, raw_data bounded to JSONB_ROW_SIZE_LIMIT_BYTES. Anything malformed is an
// InventoryArtefactError, raised before a row is written.
import { createHash, randomBytes } from "node:crypto";
import { sizeDelimitedDecodeStream } from "@bufbuild/protobuf/wire";
import { boundJsonObject } from "@sca/db/jsonb-object";
import {
  InventoryRecordSchema,
  type InventoryComponent,
  type InventoryDocument,
} from "@sca/proto/sca/projects/v1/inventory_pb.ts";

export class InventoryArtefactError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InventoryArtefactError";
  }
}

export type DependencyScope = "required" | "optional";

export interface ComponentRow {
  id: string;
  componentId: string;
  key: string;
  bomRefs: string[];
  type: string | null;
  groupName: string | null;
  name: string;
  version: string | null;
  purl: string | null;
  cpe: string | null;
  hashes: { algorithm: string; value: string }[];
  declaredLicense: string | null;
  concludedLicense: string | null;
  /** The concluded license, else the declared one. */
  license: string | null;
  licenseIds: string[];
  /** Under the project's license policy: set at ingestion when policy answers in time (rpc/inventory-ingest.ts). */
  licenseCategory: string | null;
  supplier: string | null;
  author: string | null;
  description: string | null;
  direct: boolean | null;
  depth: number | null;
  dependencyScope: DependencyScope | null;
  /** The bounded raw_data as JSON text: a few times smaller than its objects while a snapshot's rows are held. */
  rawData: string;
}

export interface EdgeRow {
  id: string;
  /** null: the primary component. */
  fromComponentId: string | null;
  toComponentId: string;
  scope: DependencyScope | null;
}

export interface InventoryContents {
  document: InventoryDocument;
  components: ComponentRow[];
  edges: EdgeRow[];
}

/** The largest single record accepted (a component with its raw_data); the artefact as a whole streams. */
export const RECORD_MAX_BYTES = 16 * 1024 * 1024;

// RFC 4122 UUIDv5 (SHA-1, name-based) under a namespace of our own: a component key names one component_id
// everywhere, in every project and scan.
const COMPONENT_NAMESPACE = Buffer.from("6b1f0d52a4e34d0c9e1c5f3f0a9c7e21", "hex");

export function componentIdOf(key: string): string {
  const hash = createHash("sha1").update(COMPONENT_NAMESPACE).update(key, "utf8").digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Row ids of one snapshot in ascending order: the UUIDv7 layout (the time in milliseconds, then a random start and a
 * counter in the random bits), handed out in the order the rows are written, so the primary keys grow at their right
 * edge. With random (v4) ids every row of a COPY went to another page of them; index maintenance is most of an
 * ingestion's time, and the edges' COPY took about twice as long (git log -p docs/benchmarks.md).
 */
export function ascendingIds(now = Date.now()): () => string {
  const time = now.toString(16).padStart(12, "0");
  const random = randomBytes(8);
  const randA = (random.readUInt16BE(0) & 0x0fff).toString(16).padStart(3, "0");
  const variantAndHigh = (0x8000 | (random.readUInt16BE(2) & 0x3fff)).toString(16);
  // A 48-bit field starting below 2^32: room for far more rows than a snapshot holds.
  let counter = random.readUInt32BE(4);
  return () =>
    `${time.slice(0, 8)}-${time.slice(8)}-7${randA}-${variantAndHigh}-${(counter++).toString(16).padStart(12, "0")}`;
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function scopeOf(value: string | undefined, where: string): DependencyScope | null {
  if (value === undefined || value === "") return null;
  if (value === "required" || value === "optional") return value;
  throw new InventoryArtefactError(`${where} has the dependency scope "${value.slice(0, 40)}" (required or optional).`);
}

function rawDataOf(bytes: Uint8Array, key: string, limit: number): string {
  if (bytes.length === 0) return "{}";
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InventoryArtefactError(`The raw_data of component ${key.slice(0, 200)} is not JSON.`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new InventoryArtefactError(`The raw_data of component ${key.slice(0, 200)} is not a JSON object.`);
  // Within the ceiling (the runner bounds it before it writes the artefact): the text as sent, not written again.
  // Without escapes, which COPY reads as JSON.stringify writes them (bulk.ts), it is the same document to jsonb.
  if (bytes.length <= limit && !text.includes("\\u")) return text;
  return boundJsonObject(JSON.stringify(parsed), limit).text;
}

const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

function rowOf(c: InventoryComponent, rawDataMaxBytes: number): ComponentRow {
  if (!c.key) throw new InventoryArtefactError("A component record has no key.");
  if (c.depth !== undefined && c.depth < 0)
    throw new InventoryArtefactError(`Component ${c.key.slice(0, 200)} has a negative depth.`);
  const declaredLicense = orNull(c.declaredLicense);
  const concludedLicense = orNull(c.concludedLicense);
  return {
    id: "", // given once every component is known, in the order they are written
    componentId: componentIdOf(c.key),
    key: c.key,
    bomRefs: [...c.bomRefs],
    type: orNull(c.type),
    groupName: orNull(c.group),
    name: c.name,
    version: orNull(c.version),
    purl: orNull(c.purl),
    cpe: orNull(c.cpe),
    hashes: c.hashes.map((h) => ({ algorithm: h.algorithm, value: h.value })),
    declaredLicense,
    concludedLicense,
    license: concludedLicense ?? declaredLicense,
    licenseIds: [...c.licenseIds],
    licenseCategory: null,
    supplier: orNull(c.supplier),
    author: orNull(c.author),
    description: orNull(c.description),
    direct: orNull(c.direct),
    depth: orNull(c.depth),
    dependencyScope: scopeOf(c.dependencyScope, `Component ${c.key.slice(0, 200)}`),
    rawData: rawDataOf(c.rawData, c.key, rawDataMaxBytes),
  };
}

/**
 * Decodes the artefact: the document record first, then components and edges in any order. A component key seen
 * again merges its bom-refs into the first; an edge seen again (same ends) is kept once; an edge naming a key no
 * component has is malformed.
 */
export async function readInventoryArtefact(
  source: AsyncIterable<Uint8Array>,
  opts: { rawDataMaxBytes: number },
): Promise<InventoryContents> {
  let document: InventoryDocument | undefined;
  const components = new Map<string, ComponentRow>();
  // Edges once per (from, to), by source then target: no key string made per edge (30,000 at 10,000 components).
  const edgesFrom = new Map<string | null, Map<string, DependencyScope | null>>();
  try {
    for await (const record of sizeDelimitedDecodeStream(InventoryRecordSchema, source, {
      readMaxBytes: RECORD_MAX_BYTES,
    })) {
      const r = record.record;
      if (!document) {
        if (r.case !== "document") throw new InventoryArtefactError("The first record is not the document record.");
        document = r.value;
        continue;
      }
      switch (r.case) {
        case "document":
          throw new InventoryArtefactError("The artefact has a second document record.");
        case "component": {
          const seen = components.get(r.value.key);
          if (seen) {
            for (const ref of r.value.bomRefs) if (!seen.bomRefs.includes(ref)) seen.bomRefs.push(ref);
          } else {
            components.set(r.value.key, rowOf(r.value, opts.rawDataMaxBytes));
          }
          break;
        }
        case "edge": {
          const from = r.value.from ?? null;
          if (!r.value.to) throw new InventoryArtefactError("An edge record has no target.");
          let targets = edgesFrom.get(from);
          if (!targets) edgesFrom.set(from, (targets = new Map<string, DependencyScope | null>()));
          if (!targets.has(r.value.to)) targets.set(r.value.to, scopeOf(r.value.scope, "An edge"));
          break;
        }
        default:
          throw new InventoryArtefactError("A record is empty (neither document, component nor edge).");
      }
    }
  } catch (err) {
    // Framing and wire errors of the decoder (plain Errors) mean a truncated or corrupt artefact; the source's own
    // errors (a failing read, a checksum that does not match) pass as they are.
    if (!(err instanceof Error) || err.constructor !== Error) throw err;
    throw new InventoryArtefactError(`The inventory artefact is malformed: ${err.message}`);
  }
  if (!document) throw new InventoryArtefactError("The inventory artefact is empty (no document record).");
  const idOf = (key: string) => {
    const row = components.get(key);
    if (!row)
      throw new InventoryArtefactError(`An edge names the component ${key.slice(0, 200)}, which is not listed.`);
    return row.id;
  };
  // Written in the order of the list's default sort (name, then key), with ids ascending in that order: the primary
  // key and the (scan_id, name, id) and (scan_id, severity_rank, name, id) indexes then take each row at their end.
  const rows = [...components.values()].sort((a, b) => byCodeUnits(a.name, b.name) || byCodeUnits(a.key, b.key));
  const componentId = ascendingIds();
  for (const row of rows) row.id = componentId();
  // Edges likewise, ordered by their source: the primary key and (scan_id, from_component_id) grow at their end.
  const edges: EdgeRow[] = [...edgesFrom]
    .flatMap(([from, targets]) => {
      const fromComponentId = from === null ? null : idOf(from);
      return [...targets].map(([to, scope]) => ({ id: "", fromComponentId, toComponentId: idOf(to), scope }));
    })
    .sort(
      (a, b) =>
        byCodeUnits(a.fromComponentId ?? "", b.fromComponentId ?? "") || byCodeUnits(a.toComponentId, b.toComponentId),
    );
  const edgeId = ascendingIds();
  for (const edge of edges) edge.id = edgeId();
  return { document, components: rows, edges };
}
