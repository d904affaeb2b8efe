// Re-stamping existing inventories after the end-of-life dataset or the malicious snapshot changed
// (docs/enrichment-feeds.md, "Re-stamping after a snapshot refresh"): the distinct purls of every project's newest
// snapshot (ListHeldPurls) each get the refreshed feed's verdict once, and projects writes them on every row holding
// the purl (RestampComponentStates: one statement per 5,000 purls, only that feed's columns). Currency is left alone:
// it comes from the registries, not from a snapshot.
import type { ComponentStates } from "../clients/component-states.ts";
import {
  componentStateOf,
  languagePackageOf,
  packageVersionKey,
  type ComponentStateInit,
} from "../domain/component-states.ts";
import type { MaliciousVerdict } from "../domain/feeds/malicious.ts";
import type { EnrichmentReader } from "./enrichment-reader.ts";

export type StampFeed = "eol" | "malicious";

/** Purls per RestampComponentStates call (one projects transaction each; well under the 4 MiB message bound). */
const PURLS_PER_CALL = 5000;
/** projects' bound on a state's purl: a longer one (never stamped by a scan either) is left out, not a failed pass. */
const PURL_MAX = 4096;

export interface RestampDeps {
  enrichment: Pick<
    EnrichmentReader,
    "eolOf" | "maliciousVerdicts" | "eolEnabled" | "maliciousEnabled" | "forgetEolData"
  >;
  componentStates: ComponentStates;
}

export interface RestampTotals {
  /** The feeds re-stamped (a feed whose flagging is off is not: its states stay as they are). */
  feeds: StampFeed[];
  purls: number;
  updated: number;
  newlyFlagged: number;
  eolCleared: number;
  /** After the pass, over every project's newest snapshot. */
  eolStamped: number;
  eolFlagged: number;
  maliciousStamped: number;
  maliciousFlagged: number;
}

/** One purl's states of the re-stamped feeds (the others' fields absent: the write leaves their columns). */
async function stateOf(
  purl: string,
  feeds: readonly StampFeed[],
  deps: RestampDeps,
  malicious: ReadonlyMap<string, MaliciousVerdict> | null,
): Promise<ComponentStateInit> {
  const eol = feeds.includes("eol") ? await deps.enrichment.eolOf(purl) : null;
  const pkg = malicious ? languagePackageOf(purl) : null;
  const verdict = pkg ? malicious?.get(packageVersionKey(pkg)) : null;
  return componentStateOf(purl, eol, null, verdict) ?? { purl };
}

export async function restampInventories(
  deps: RestampDeps,
  queued: readonly StampFeed[],
  signal: AbortSignal,
): Promise<RestampTotals> {
  const feeds = queued.filter((f) => (f === "eol" ? deps.enrichment.eolEnabled : deps.enrichment.maliciousEnabled));
  const totals: RestampTotals = {
    feeds,
    purls: 0,
    updated: 0,
    newlyFlagged: 0,
    eolCleared: 0,
    eolStamped: 0,
    eolFlagged: 0,
    maliciousStamped: 0,
    maliciousFlagged: 0,
  };
  if (feeds.length === 0) return totals;
  if (feeds.includes("eol")) deps.enrichment.forgetEolData();
  const restamp = async (purls: readonly string[]) => {
    const packages = purls.flatMap((p) => languagePackageOf(p) ?? []);
    const distinct = [...new Map(packages.map((p) => [packageVersionKey(p), p])).values()];
    const malicious = feeds.includes("malicious") ? await deps.enrichment.maliciousVerdicts(distinct) : null;
    const states: ComponentStateInit[] = [];
    for (const purl of purls) states.push(await stateOf(purl, feeds, deps, malicious));
    const r = await deps.componentStates.restamp({ feeds, states }, signal);
    totals.purls += purls.length;
    totals.updated += r.updated;
    totals.newlyFlagged += r.newlyFlagged;
    totals.eolCleared += r.eolCleared;
  };
  for await (const chunk of deps.componentStates.listHeldPurls(signal)) {
    const purls = chunk.filter((p) => p.length <= PURL_MAX);
    for (let i = 0; i < purls.length; i += PURLS_PER_CALL) await restamp(purls.slice(i, i + PURLS_PER_CALL));
  }
  const counts = await deps.componentStates.count(signal);
  totals.eolStamped = counts.eolStamped;
  totals.eolFlagged = counts.eolFlagged;
  totals.maliciousStamped = counts.maliciousStamped;
  totals.maliciousFlagged = counts.maliciousFlagged;
  return totals;
}

/** The panel counts of a feed after a re-stamp (docs/enrichment-feeds.md, "Routes"). */
export function panelCountsOf(feed: StampFeed, t: RestampTotals): Record<string, number> {
  return feed === "eol"
    ? { stamped: t.eolStamped, eol_flagged_total: t.eolFlagged, cleared: t.eolCleared }
    : { stamped: t.maliciousStamped, flagged_total: t.maliciousFlagged, newly_flagged: t.newlyFlagged };
}
