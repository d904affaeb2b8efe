// The enrichment stage of a scan, after matching (docs/enrichment-feeds.md, "Component states"): each distinct purl
// of the inventory gets its end-of-life verdict (the dataset, in memory), its malicious verdict (the snapshot, read
// in bulk) and its currency (the registries, a few requests at a time, the whole lookup capped), and projects records
// them on the snapshot's rows (RecordComponentStates: one statement per 5,000 purls).
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

export async function recordComponentStates(
  job: ScanJob,
  deps: ComponentStateDeps,
  reporter: AttemptReporter,
  inventory: SbomInventory,
  scopeFilter: boolean,
  signal: AbortSignal,
): Promise<void> {
  const purls = [
    ...new Set(
      inventory.components.flatMap((c) => (c.purl && !(scopeFilter && c.scope === "excluded") ? [c.purl] : [])),
    ),
  ];
  const packageOf = new Map<string, PackageVersion>();
  for (const purl of purls) {
    const pkg = languagePackageOf(purl);
    if (pkg) packageOf.set(purl, pkg);
  }
  const packages = [...new Map([...packageOf.values()].map((p) => [packageVersionKey(p), p])).values()];

  const malicious = await deps.enrichment.maliciousVerdicts(packages);
  const lookupSignal = AbortSignal.any([signal, AbortSignal.timeout(deps.currencyStageMs)]);
  const latest = deps.registries
    ? await deps.registries.latestOf(
        packages.map((p) => ({ ecosystem: p.ecosystem, name: p.name })),
        lookupSignal,
      )
    : null;
  signal.throwIfAborted();

  const states: ComponentStateInit[] = [];
  const counts = { eol: 0, supported: 0, outdated: 0, current: 0, unknown: 0, flagged: 0, unreached: 0 };
  for (const purl of purls) {
    const pkg = packageOf.get(purl);
    const eol = await deps.enrichment.eolOf(purl);
    const known = pkg && latest?.has(packageNameKey(pkg)) ? latest.get(packageNameKey(pkg))! : undefined;
    if (pkg && latest && !latest.has(packageNameKey(pkg))) counts.unreached++;
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
    updated += (
      await deps.componentStates.record(
        { projectId: job.projectId, scanId: job.scanId, states: states.slice(i, i + RECORD_CHUNK) },
        signal,
      )
    ).updated;
  const lines = [
    `Assessed ${purls.length} distinct purls: ${counts.eol} end of life, ${counts.supported} supported; ` +
      (malicious ? `${counts.flagged} known malicious; ` : "malicious flagging off; ") +
      (latest
        ? `${counts.outdated} outdated, ${counts.current} current, ${counts.unknown} of unknown currency` +
          (counts.unreached ? `, ${counts.unreached} not reached within the lookup's time` : "")
        : "currency lookup off") +
      `. ${updated} component rows updated.`,
  ];
  await reporter.log("matching", "stdout", lines);
}
