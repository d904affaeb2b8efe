// A document written piece by piece, in this order: begin, component (each, in the snapshot's key order),
// endComponents, dependencies (the root's first, then each component's, in key order; only when the snapshot has
// a graph), end. Concatenated, the pieces are the document. Writers keep only counters and what must come after
// the components (the SPDX LicenseRefs), never the components themselves.
import type { SbomComponent, SbomEdgeTarget } from "./export-format.ts";

export interface SbomWriter {
  begin(): string;
  component(c: SbomComponent): string;
  endComponents(): string;
  /** The edges of one depender (null: the root), targets in key order; called once per depender. */
  dependencies(from: SbomComponent | null, to: SbomEdgeTarget[]): string;
  end(): string;
}
