// The license lookup of a scan (docs/license-fetch.md): after the SBOM is read, whatever its kind, each component
// with a purl and no license (declared nor concluded) gets the one its package registry states for that release,
// a few requests at a time, each bounded, the whole stage capped (LICENSE_FETCH_STAGE_SECONDS: releases not reached
// by then stay without one). Filled licenses are marked in raw_data as the registry's. One log line with the counts.
import type { PackageRegistries, LookupLimits } from "../clients/package-registries.ts";
import { packageReleaseKey } from "../clients/package-registries.ts";
import { languagePackageOf } from "../domain/component-states.ts";
import { registryOf } from "../domain/currency/registries.ts";
import { LICENSE_REGISTRIES } from "../domain/licenses/registry-licenses.ts";
import { fillFetchedLicense, lacksLicense, normalisedRegistryLicense } from "../domain/licenses/fetched-licenses.ts";
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
}

/** The log stage of the lookup's line (a free word of the spec's stage vocabulary). */
export const LICENSE_FETCH_STAGE = "licenses";

/**
 * Fills the inventory's missing licenses from the registries, in place. `scopeFilter`: components about to be
 * dropped as non-runtime are not looked up.
 */
export async function fetchMissingLicenses(
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

  const normaliser = createLicenseNormaliser();
  const filled = new Map<string, number>();
  let unstated = 0;
  let unreached = 0;
  for (const { component, release } of wanting) {
    const key = packageReleaseKey(release);
    if (!fetched.has(key)) {
      unreached++;
      continue;
    }
    const license = fetched.get(key);
    const normalised = license ? normalisedRegistryLicense(license, normaliser) : null;
    if (!license || !normalised) {
      unstated++;
      continue;
    }
    if (fillFetchedLicense(component, normalised, license.registry))
      filled.set(license.registry, (filled.get(license.registry) ?? 0) + 1);
  }
  const total = [...filled.values()].reduce((a, b) => a + b, 0);
  const byRegistry = [...filled].map(([r, n]) => `${r} ${n}`).join(", ");
  await reporter.log(LICENSE_FETCH_STAGE, "stdout", [
    `License lookup: ${unlicensed} components without a license; ${total} filled from their registries` +
      (byRegistry ? ` (${byRegistry})` : "") +
      `, ${unstated} the registry states none for (or could not be asked)` +
      (unpublished ? `, ${unpublished} of Go, NuGet or RubyGems (whose registries state no license)` : "") +
      (unreached ? `, ${unreached} not reached within LICENSE_FETCH_STAGE_SECONDS (${deps.stageMs / 1000} s)` : "") +
      ".",
  ]);
}
