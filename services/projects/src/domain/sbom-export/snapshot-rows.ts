// The rows an SBOM document is written from, whichever holds them: the database (the export, read a page at a time)
// or the ingestion's memory (the copy kept for signing, docs/signing.md). Both give the same order, so both write the
// same bytes: components by key as PostgreSQL's C collation orders text (UTF-8 bytes, that is code points), each
// depender's targets by key too.
import type { SbomComponent, SbomEdgeTarget } from "./export-format.ts";

/** A component with the row id its edges name. */
export type SbomComponentRow = SbomComponent & { id: string };

export interface SnapshotRows {
  /** Every component, in key order, a page at a time. */
  componentPages(): AsyncIterable<SbomComponentRow[]> | Iterable<SbomComponentRow[]>;
  /** The primary component's edges, targets in key order. */
  rootEdges(): Promise<SbomEdgeTarget[]>;
  /** The outgoing edges of these components (row ids), per component, targets in key order. */
  edgesFrom(ids: string[]): Promise<Map<string, SbomEdgeTarget[]>>;
}

/** Code point order, which is UTF-8 byte order and PostgreSQL's C collation (JS's `<` compares UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only a surrogate (a code point past U+FFFF) against U+E000..U+FFFF orders otherwise by units.
    const surrogate = (c: number) => c >= 0xd800 && c <= 0xdfff;
    if (surrogate(x) !== surrogate(y)) return surrogate(x) ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

export interface HeldEdge {
  /** null: the primary component. */
  fromComponentId: string | null;
  toComponentId: string;
  scope: string | null;
}

/** Rows held in memory (an ingestion's), served in the database's order. */
export function heldSnapshotRows(components: readonly SbomComponentRow[], edges: readonly HeldEdge[]): SnapshotRows {
  const sorted = [...components].sort((a, b) => compareCodePoints(a.key, b.key));
  const byId = new Map(components.map((c) => [c.id, c]));
  const targets = new Map<string | null, SbomEdgeTarget[]>();
  for (const e of edges) {
    const to = byId.get(e.toComponentId);
    if (!to) continue;
    const list = targets.get(e.fromComponentId) ?? [];
    list.push({ componentId: to.componentId, key: to.key, scope: e.scope });
    targets.set(e.fromComponentId, list);
  }
  for (const list of targets.values()) list.sort((a, b) => compareCodePoints(a.key, b.key));
  return {
    componentPages: () => [sorted],
    rootEdges: () => Promise.resolve(targets.get(null) ?? []),
    edgesFrom: (ids) =>
      Promise.resolve(new Map(ids.flatMap((id) => (targets.has(id) ? [[id, targets.get(id)!] as const] : [])))),
  };
}
