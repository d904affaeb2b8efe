// A scan's component states (proto sca.projects.v1.ComponentState): per distinct purl, the end-of-life verdict, the
// currency against the registry's latest version and the malicious verdict, each absent when not assessed
// (docs/enrichment-feeds.md, "Component states").
import { packageOfPurl, type PackageVersion } from "@sca/purl-package";
import type { Currency } from "./currency/currency.ts";
import { registryOf } from "./currency/registries.ts";
import type { EolVerdict } from "./feeds/eol.ts";
import type { MaliciousVerdict } from "./feeds/malicious.ts";

/** Where eol_source says the end-of-life verdict came from. */
export const EOL_SOURCE = "endoflife.date";

export interface ComponentStateInit {
  purl: string;
  eolState?: string;
  eolCycle?: string;
  eolDate?: string;
  eolProduct?: string;
  eolSource?: string;
  currencyState?: string;
  currencyLatest?: string;
  currencyLatestReleaseDate?: string;
  maliciousState?: string;
  maliciousId?: string;
  maliciousSource?: string;
}

/**
 * The package version of a purl in a language ecosystem (the registries publish those and the malicious snapshot
 * covers them); null for OS packages and purls that name no package.
 */
export function languagePackageOf(purl: string): PackageVersion | null {
  const named = packageOfPurl(purl);
  return named.kind === "package" && registryOf(named.package.ecosystem) ? named.package : null;
}

export const packageVersionKey = (p: PackageVersion): string => `${p.ecosystem}\u0000${p.name}\u0000${p.version}`;

/** One purl's states from what each source said (undefined or null: that source did not assess it). */
export function componentStateOf(
  purl: string,
  eol: EolVerdict | null | undefined,
  currency: Currency | null | undefined,
  malicious: MaliciousVerdict | null | undefined,
): ComponentStateInit | null {
  const s: ComponentStateInit = { purl };
  if (eol) {
    s.eolState = eol.state;
    s.eolProduct = eol.product;
    s.eolSource = EOL_SOURCE;
    if (eol.cycle) s.eolCycle = eol.cycle;
    if (eol.date) s.eolDate = eol.date;
  }
  if (currency) {
    s.currencyState = currency.state;
    if (currency.latest) s.currencyLatest = currency.latest;
    if (currency.latestReleaseDate) s.currencyLatestReleaseDate = currency.latestReleaseDate;
  }
  if (malicious) {
    s.maliciousState = malicious.state;
    if (malicious.state === "flagged") {
      s.maliciousId = malicious.id;
      s.maliciousSource = malicious.source;
    }
  }
  return Object.keys(s).length > 1 ? s : null;
}
