// The spec's per-ecosystem refinements of SCAN_SCOPE_FILTER_ENABLED (docs/scanner-runner.md, "The inventory
// artefact"): SCAN_SCOPE_FILTER_MAVEN_ENABLED and SCAN_SCOPE_FILTER_NODE_ENABLED. With the filter on, an ecosystem
// whose refinement is off keeps its non-runtime (excluded) components, as the whole filter off would: they stay,
// with no dependency_scope. With the filter off, the refinements change nothing (there is nothing to refine).
import type { SbomComponent, SbomInventory } from "./inventory.ts";

/** Which refinement governs a component, by its purl's type: Maven's, and npm's for the Node ecosystem. */
export type ScopeFilterEcosystem = "maven" | "node";

export interface ScopeRefinements {
  /** SCAN_SCOPE_FILTER_MAVEN_ENABLED */
  maven: boolean;
  /** SCAN_SCOPE_FILTER_NODE_ENABLED */
  node: boolean;
}

const ECOSYSTEM_OF_PURL_TYPE: Readonly<Record<string, ScopeFilterEcosystem>> = { maven: "maven", npm: "node" };

export function scopeFilterEcosystemOf(component: Pick<SbomComponent, "purl">): ScopeFilterEcosystem | null {
  const purl = component.purl;
  if (!purl?.startsWith("pkg:")) return null;
  const type = purl.slice(4, purl.indexOf("/") > 4 ? purl.indexOf("/") : undefined).toLowerCase();
  return ECOSYSTEM_OF_PURL_TYPE[type] ?? null;
}

/**
 * The inventory with the refinements applied, in place: with the filter on, each excluded component of an ecosystem
 * whose refinement is off loses its scope (so the filter keeps it, unscoped). Edges keep their own scope (the
 * artefact writes an excluded edge scope as absent).
 */
export function refineScopes(
  inventory: SbomInventory,
  scopeFilter: boolean,
  refinements: ScopeRefinements,
): SbomInventory {
  if (!scopeFilter || (refinements.maven && refinements.node)) return inventory;
  for (const c of inventory.components) {
    if (c.scope !== "excluded") continue;
    const ecosystem = scopeFilterEcosystemOf(c);
    if (ecosystem && !refinements[ecosystem]) c.scope = null;
  }
  return inventory;
}
