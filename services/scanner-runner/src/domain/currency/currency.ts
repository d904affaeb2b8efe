// A component's currency: its version against the latest its registry publishes, compared with the ecosystem's own
// version order (the matcher's schemes). current: the same or newer (a pre-release ahead of the latest); outdated:
// older; unknown: the registry could not say, or one of the two versions does not read in the ecosystem's scheme.
import { schemeOf } from "@sca/version-order";
import type { LatestRelease } from "./registries.ts";

export type CurrencyState = "current" | "outdated" | "unknown";

export interface Currency {
  state: CurrencyState;
  latest: string | null;
  latestReleaseDate: string | null;
}

export function currencyOf(ecosystem: string, version: string, latest: LatestRelease | null): Currency {
  if (!latest) return { state: "unknown", latest: null, latestReleaseDate: null };
  const scheme = schemeOf(ecosystem);
  const have = scheme?.parse(version) ?? null;
  const newest = scheme?.parse(latest.version) ?? null;
  const state: CurrencyState =
    !scheme || have === null || newest === null
      ? "unknown"
      : scheme.compare(have, newest) >= 0
        ? "current"
        : "outdated";
  return { state, latest: latest.version, latestReleaseDate: latest.releaseDate };
}
