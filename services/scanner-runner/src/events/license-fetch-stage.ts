// The license lookup of a scan (docs/license-fetch.md): each component with a purl and no license (declared nor
// concluded) gets the one its package registry states for that release, a few requests at a time, each bounded, the
// whole stage capped (LICENSE_FETCH_STAGE_SECONDS: releases not reached by then stay without one). It runs after the
// findings are recorded, so it never delays them: the licenses go to projects by purl (RecordFetchedLicenses, one
// statement per 5,000 purls), which fills the snapshot's license-less rows, marks them as the registry's and has
// them categorised again. One log line with the counts.
import type { ScanJob } from "@sca/proto/sca/events/v1/scans_pb.ts";
import type { ComponentStates } from "../clients/component-states.ts";
import type { PackageRegistries, LookupLimits } from "../clients/package-registries.ts";
import { packageReleaseKey } from "../clients/package-registries.ts";
import { languagePackageOf } from "../domain/component-states.ts";
import { registryOf } from "../domain/currency/registries.ts";
import { LICENSE_REGISTRIES } from "../domain/licenses/registry-licenses.ts";
import { lacksLicense, licenseFillsOf } from "../domain/licenses/fetched-licenses.ts";
import { createLicenseNormaliser } from "../domain/sbom/license-expression.ts";
import type { SbomInventory } from "../domain/sbom/inventory.ts";
import type { AttemptReporter } from "./attempt-reporter.ts";

export interface LicenseFetchDeps {
  /** null: LICENSE_FETCH_ENABLED is off. */
  registries: PackageRegistries | null;
  /** LICENSE_FETCH_TIMEOUT_SECONDS and LICENSE_FETCH_CONCURRENCY. */
  limits: LookupLimits;
  /** LICENSE_FETCH_STAGE_SECONDS, in ms. */
  stageMs: number;
  /** Where the licenses found are recorded on the ingested snapshot. */
  componentStates: Pick<ComponentStates, "recordFetchedLicenses">;
}

/** The log stage of the lookup's line (a free word of the spec's stage vocabulary). */
export const LICENSE_FETCH_STAGE = "licenses";

/** Purls per RecordFetchedLicenses call (projects' FETCHED_LICENSES_MAX). */
const RECORD_CHUNK = 5000;

/**
 * Looks up the missing licenses of the ingested scan's components and has projects record them on its snapshot.
 * `scopeFilter`: components dropped as non-runtime (not in the snapshot) are not looked up.
 */
export async function recordFetchedLicenses(
  job: ScanJob,
  inventory: SbomInventory,
  deps: LicenseFetchDeps,
  scopeFilter: boolean,
  reporter: AttemptReporter,
  signal: AbortSignal,
): Promise<void> {
  if (!deps.registries) return;
  let unpublished = 0;
  const wanting = inventory.components.flatMap((c) => {
    if (!c.purl || !lacksLicense(c) || (scopeFilter && c.scope === "excluded")) return [];
    const release = languagePackageOf(c.purl);
    if (!release) return [];
    // Go's module proxy, NuGet's flat container and RubyGems' latest.json state no license.
    if (!LICENSE_REGISTRIES.includes(registryOf(release.ecosystem)!)) {
      unpublished++;
      return [];
    }
    return [{ component: c, release }];
  });
  const unlicensed = inventory.components.filter(lacksLicense).length;
  if (wanting.length === 0) {
    await reporter.log(LICENSE_FETCH_STAGE, "stdout", [
      `License lookup: ${unlicensed} components without a license, none with a purl of a registry that publishes ` +
        `licenses (npm, PyPI, crates.io, Maven)${unpublished ? `; ${unpublished} of Go, NuGet or RubyGems` : ""}.`,
    ]);
    return;
  }
  const lookupSignal = AbortSignal.any([signal, AbortSignal.timeout(deps.stageMs)]);
  const fetched = await deps.registries.licensesOf(
    wanting.map((w) => w.release),
    lookupSignal,
    deps.limits,
  );
  signal.throwIfAborted();

  const fills = licenseFillsOf(wanting, fetched, (w) => packageReleaseKey(w.release), createLicenseNormaliser());
  let updated = 0;
  for (let i = 0; i < fills.licenses.length; i += RECORD_CHUNK)
    updated += (
      await deps.componentStates.recordFetchedLicenses(
        { projectId: job.projectId, scanId: job.scanId, licenses: fills.licenses.slice(i, i + RECORD_CHUNK) },
        signal,
      )
    ).updated;
  const total = [...fills.filled.values()].reduce((a, b) => a + b, 0);
  const byRegistry = [...fills.filled].map(([r, n]) => `${r} ${n}`).join(", ");
  await reporter.log(LICENSE_FETCH_STAGE, "stdout", [
    `License lookup: ${unlicensed} components without a license; ${total} filled from their registries` +
      (byRegistry ? ` (${byRegistry})` : "") +
      `, ${fills.unstated} the registry states none for (or could not be asked)` +
      (unpublished ? `, ${unpublished} of Go, NuGet or RubyGems (whose registries state no license)` : "") +
      (fills.unreached
        ? `, ${fills.unreached} not reached within LICENSE_FETCH_STAGE_SECONDS (${deps.stageMs / 1000} s)`
        : "") +
      `. ${updated} component rows of the snapshot updated.`,
  ]);
}
