// The enrichment stage of a scan, after matching (docs/enrichment-feeds.md, "Component states"): each distinct purl
// of the inventory gets its end-of-life verdict (the dataset, in memory), its malicious verdict (the snapshot, read
// in bulk) and its currency (the registries, a few requests at a time, the whole lookup capped), and projects records
// them on the snapshot's rows (RecordComponentStates: one statement per 5,000 purls). The scan's outcome waits for
// the registries at most REGISTRY_LOOKUP_WAIT_SECONDS: purls whose currency had not answered by then are assessed
// again after the outcome (late-registry-lookups.ts), their other states recorded now.
import type { PackageVersion } from "@sca/purl-package";
import type { ScanJob } from "@sca/proto/sca/events/v1/scans_pb.ts";
import type { ComponentStates } from "../clients/component-states.ts";
import { packageNameKey, type PackageRegistries } from "../clients/package-registries.ts";
import {
  componentStateOf,
  languagePackageOf,
  packageVersionKey,
  type ComponentStateInit,
} from "../domain/component-states.ts";
import { currencyOf } from "../domain/currency/currency.ts";
import type { SbomInventory } from "../domain/sbom/inventory.ts";
import type { EnrichmentReader } from "../feeds/enrichment-reader.ts";
import type { AttemptReporter } from "./attempt-reporter.ts";

export interface ComponentStateDeps {
  enrichment: Pick<EnrichmentReader, "eolOf" | "maliciousVerdicts">;
  /** null: CURRENCY_ENABLED is off. */
  registries: PackageRegistries | null;
  /** The whole registry lookup of one scan: packages not reached by then stay unassessed. */
  currencyStageMs: number;
  componentStates: ComponentStates;
}

const RECORD_CHUNK = 5000;

export interface StateCounts {
  eol: number;
  supported: number;
  outdated: number;
  current: number;
  unknown: number;
  flagged: number;
  unreached: number;
}

export interface AssessedStates {
  /** Whether the malicious snapshot and the registries were asked (off: null verdicts). */
  malicious: boolean;
  currency: boolean;
  counts: StateCounts;
  /** Component rows of the snapshot updated. */
  updated: number;
  /** Purls of a registry's package whose latest version was not answered before `lookupSignal` aborted. */
  unanswered: string[];
}

/**
 * Assesses `purls` (distinct) and has projects record their states on the scan's snapshot: the registries are asked
 * until `lookupSignal` aborts; `signal` is the job's or the late lookup's own.
 */
export async function recordStatesOf(
  scan: { projectId: string; scanId: string },
  purls: readonly string[],
  deps: ComponentStateDeps,
  lookupSignal: AbortSignal,
  signal: AbortSignal,
): Promise<AssessedStates> {
  const packageOf = new Map<string, PackageVersion>();
  for (const purl of purls) {
    const pkg = languagePackageOf(purl);
    if (pkg) packageOf.set(purl, pkg);
  }
  const packages = [...new Map([...packageOf.values()].map((p) => [packageVersionKey(p), p])).values()];

  const malicious = await deps.enrichment.maliciousVerdicts(packages);
  const latest = deps.registries
    ? await deps.registries.latestOf(
        packages.map((p) => ({ ecosystem: p.ecosystem, name: p.name })),
        lookupSignal,
      )
    : null;
  signal.throwIfAborted();

  const states: ComponentStateInit[] = [];
  const unanswered: string[] = [];
  const counts: StateCounts = { eol: 0, supported: 0, outdated: 0, current: 0, unknown: 0, flagged: 0, unreached: 0 };
  for (const purl of purls) {
    const pkg = packageOf.get(purl);
    const eol = await deps.enrichment.eolOf(purl);
    const known = pkg && latest?.has(packageNameKey(pkg)) ? latest.get(packageNameKey(pkg))! : undefined;
    if (pkg && latest && !latest.has(packageNameKey(pkg))) {
      counts.unreached++;
      unanswered.push(purl);
    }
    const currency = pkg && known !== undefined ? currencyOf(pkg.ecosystem, pkg.version, known) : null;
    const verdict = pkg ? malicious?.get(packageVersionKey(pkg)) : null;
    const state = componentStateOf(purl, eol, currency, verdict);
    if (!state) continue;
    states.push(state);
    if (eol?.state === "eol") counts.eol++;
    if (eol?.state === "supported") counts.supported++;
    if (currency) counts[currency.state]++;
    if (verdict?.state === "flagged") counts.flagged++;
  }
  let updated = 0;
  for (let i = 0; i < states.length; i += RECORD_CHUNK)
    updated += (await deps.componentStates.record({ ...scan, states: states.slice(i, i + RECORD_CHUNK) }, signal))
      .updated;
  return { malicious: malicious !== null, currency: latest !== null, counts, updated, unanswered };
}

/** `outcomeDue` aborts when the scan's outcome may wait no longer: answers the purls whose currency is still asked. */
export async function recordComponentStates(
  job: ScanJob,
  deps: ComponentStateDeps,
  reporter: AttemptReporter,
  inventory: SbomInventory,
  scopeFilter: boolean,
  signal: AbortSignal,
  outcomeDue: AbortSignal,
): Promise<{ pendingPurls: string[] }> {
  const purls = [
    ...new Set(
      inventory.components.flatMap((c) => (c.purl && !(scopeFilter && c.scope === "excluded") ? [c.purl] : [])),
    ),
  ];
  const lookupSignal = AbortSignal.any([signal, AbortSignal.timeout(deps.currencyStageMs), outcomeDue]);
  const assessed = await recordStatesOf(job, purls, deps, lookupSignal, signal);
  // Cut off by the outcome's wait: still being asked. Cut off by the stage's cap: given up.
  const pending = lookupSignal.aborted && lookupSignal.reason === outcomeDue.reason;
  const { counts } = assessed;
  await reporter.log("matching", "stdout", [
    `Assessed ${purls.length} distinct purls: ${counts.eol} end of life, ${counts.supported} supported; ` +
      (assessed.malicious ? `${counts.flagged} known malicious; ` : "malicious flagging off; ") +
      (assessed.currency
        ? `${counts.outdated} outdated, ${counts.current} current, ${counts.unknown} of unknown currency` +
          (counts.unreached && pending
            ? `, ${counts.unreached} still being asked when the scan's outcome was due (assessed after it)`
            : "") +
          (counts.unreached && !pending ? `, ${counts.unreached} not reached within the lookup's time` : "")
        : "currency lookup off") +
      `. ${assessed.updated} component rows updated.`,
  ]);
  return { pendingPurls: pending ? assessed.unanswered : [] };
}
