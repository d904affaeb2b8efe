// The license lookup of a scan (docs/license-fetch.md): each component with a purl and no license (declared nor
// concluded) gets the one its package registry states for that release, a few requests at a time, each bounded, the
// whole lookup capped (LICENSE_FETCH_STAGE_SECONDS: releases not reached by then stay without one). It runs after the
// findings are recorded, so it never delays them, and the scan's outcome waits for it at most
// REGISTRY_LOOKUP_WAIT_SECONDS: the releases not answered by then are looked up after the outcome
// (late-registry-lookups.ts). The licenses go to projects by purl (RecordFetchedLicenses, one statement per 5,000
// purls), which fills the snapshot's license-less rows, marks them as the registry's and has them categorised again.
import type { PackageVersion } from "@sca/purl-package";
import type { ScanJob } from "@sca/proto/sca/events/v1/scans_pb.ts";
import type { ComponentStates } from "../clients/component-states.ts";
import type { PackageRegistries, LookupLimits } from "../clients/package-registries.ts";
import { packageReleaseKey } from "../clients/package-registries.ts";
import { languagePackageOf } from "../domain/component-states.ts";
import { registryOf } from "../domain/currency/registries.ts";
import { LICENSE_REGISTRIES } from "../domain/licenses/registry-licenses.ts";
import { lacksLicense, licenseFillsOf, type LicenseFills } from "../domain/licenses/fetched-licenses.ts";
import { createLicenseNormaliser } from "../domain/sbom/license-expression.ts";
import type { SbomComponent, SbomInventory } from "../domain/sbom/inventory.ts";
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

/** A component wanting a license, and the release its registry is asked about. */
export interface WantedLicense {
  component: Pick<SbomComponent, "purl" | "declaredLicense" | "concludedLicense">;
  release: PackageVersion;
}

export interface LicenseLookup {
  fills: LicenseFills;
  /** Component rows of the snapshot that took a license. */
  updated: number;
  /** Distinct purls whose release was not answered before `lookupSignal` aborted. */
  unanswered: string[];
}

/**
 * Asks the registries for the licenses `wanting` lacks until `lookupSignal` aborts, and has projects record those
 * found on the scan's snapshot (`signal`: the job's or the late lookup's own, never the lookup's cut-off).
 */
export async function fillLicenses(
  scan: { projectId: string; scanId: string },
  wanting: readonly WantedLicense[],
  deps: LicenseFetchDeps & { registries: PackageRegistries },
  lookupSignal: AbortSignal,
  signal: AbortSignal,
): Promise<LicenseLookup> {
  const fetched = await deps.registries.licensesOf(
    wanting.map((w) => w.release),
    lookupSignal,
    deps.limits,
  );
  signal.throwIfAborted();
  const keyOf = (w: WantedLicense) => packageReleaseKey(w.release);
  const fills = licenseFillsOf(wanting, fetched, keyOf, createLicenseNormaliser());
  let updated = 0;
  for (let i = 0; i < fills.licenses.length; i += RECORD_CHUNK)
    updated += (
      await deps.componentStates.recordFetchedLicenses(
        { ...scan, licenses: fills.licenses.slice(i, i + RECORD_CHUNK) },
        signal,
      )
    ).updated;
  const unanswered = [...new Set(wanting.filter((w) => !fetched.has(keyOf(w))).map((w) => w.component.purl!))];
  return { fills, updated, unanswered };
}

/** The release each purl names, for a registry that publishes licenses (null otherwise). */
export function licenseReleaseOf(purl: string): PackageVersion | null | "unpublished" {
  const release = languagePackageOf(purl);
  if (!release) return null;
  // Go's module proxy, NuGet's flat container and RubyGems' latest.json state no license.
  return LICENSE_REGISTRIES.includes(registryOf(release.ecosystem)!) ? release : "unpublished";
}

/**
 * Looks up the missing licenses of the ingested scan's components and has projects record them on its snapshot.
 * `scopeFilter`: components dropped as non-runtime (not in the snapshot) are not looked up. `outcomeDue` aborts when
 * the scan's outcome may wait no longer: answers the purls still being asked then, for the late lookup.
 */
export async function recordFetchedLicenses(
  job: ScanJob,
  inventory: SbomInventory,
  deps: LicenseFetchDeps,
  scopeFilter: boolean,
  reporter: AttemptReporter,
  signal: AbortSignal,
  outcomeDue: AbortSignal,
): Promise<{ pendingPurls: string[] }> {
  const { registries } = deps;
  if (!registries) return { pendingPurls: [] };
  let unpublished = 0;
  const wanting = inventory.components.flatMap((c): WantedLicense[] => {
    if (!c.purl || !lacksLicense(c) || (scopeFilter && c.scope === "excluded")) return [];
    const release = licenseReleaseOf(c.purl);
    if (release === "unpublished") unpublished++;
    return release && release !== "unpublished" ? [{ component: c, release }] : [];
  });
  const unlicensed = inventory.components.filter(lacksLicense).length;
  if (wanting.length === 0) {
    await reporter.log(LICENSE_FETCH_STAGE, "stdout", [
      `License lookup: ${unlicensed} components without a license, none with a purl of a registry that publishes ` +
        `licenses (npm, PyPI, crates.io, Maven)${unpublished ? `; ${unpublished} of Go, NuGet or RubyGems` : ""}.`,
    ]);
    return { pendingPurls: [] };
  }
  const lookupSignal = AbortSignal.any([signal, AbortSignal.timeout(deps.stageMs), outcomeDue]);
  const { fills, updated, unanswered } = await fillLicenses(
    job,
    wanting,
    { ...deps, registries },
    lookupSignal,
    signal,
  );
  // Cut off by the outcome's wait: still being asked. Cut off by the stage's cap: given up.
  const pending = lookupSignal.aborted && lookupSignal.reason === outcomeDue.reason;
  const total = [...fills.filled.values()].reduce((a, b) => a + b, 0);
  const byRegistry = [...fills.filled].map(([r, n]) => `${r} ${n}`).join(", ");
  await reporter.log(LICENSE_FETCH_STAGE, "stdout", [
    `License lookup: ${unlicensed} components without a license; ${total} filled from their registries` +
      (byRegistry ? ` (${byRegistry})` : "") +
      `, ${fills.unstated} the registry states none for (or could not be asked)` +
      (unpublished ? `, ${unpublished} of Go, NuGet or RubyGems (whose registries state no license)` : "") +
      (fills.unreached && pending
        ? `, ${fills.unreached} still being asked when the scan's outcome was due (REGISTRY_LOOKUP_WAIT_SECONDS, ` +
          `filled in after it)`
        : "") +
      (fills.unreached && !pending
        ? `, ${fills.unreached} not reached within LICENSE_FETCH_STAGE_SECONDS (${deps.stageMs / 1000} s)`
        : "") +
      `. ${updated} component rows of the snapshot updated.`,
  ]);
  return { pendingPurls: pending ? unanswered : [] };
}
