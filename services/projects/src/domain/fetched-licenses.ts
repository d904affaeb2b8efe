// The licenses the scanner-runner's registry lookup found for a snapshot's license-less components
// (docs/license-fetch.md): which registries may be named and how long the texts may be. The write itself only fills
// rows without a license, so a fetched license never overrides what the document stated.
import type { FieldViolation } from "@sca/problem";

/** The registries that state licenses (the raw_data property says `registry:<one of these>`). */
export const LICENSE_REGISTRIES = ["npm", "pypi", "crates", "maven"] as const;

/** The raw_data property naming the registry a license came from (the runner's LICENSE_SOURCE_PROPERTY). */
export const LICENSE_SOURCE_PROPERTY = "sca:license:source";

/** Licenses one call takes at most (one statement; the runner sends them in chunks of this size). */
export const FETCHED_LICENSES_MAX = 5000;

const PURL_MAX = 4096;
const EXPRESSION_MAX = 4096;
const IDS_MAX = 64;
const ID_MAX = 256;

/** One purl's fetched license, as the write takes it. */
export interface FetchedLicenseRow {
  purl: string;
  expression: string;
  licenseIds: string[];
  registry: string;
}

type FetchedLicenseInput = { purl: string; expression: string; licenseIds: readonly string[]; registry: string };

/** The licenses checked (each purl once, texts bounded, a known registry); violations are pushed to `v`. */
export function checkedFetchedLicenses(
  licenses: readonly FetchedLicenseInput[],
  v: FieldViolation[],
): FetchedLicenseRow[] {
  if (licenses.length > FETCHED_LICENSES_MAX)
    v.push({ path: "licenses", message: `must hold at most ${FETCHED_LICENSES_MAX} entries` });
  const seen = new Set<string>();
  return licenses.map((l, i) => {
    const at = (field: string) => `licenses[${i}].${field}`;
    if (!l.purl || l.purl.length > PURL_MAX) v.push({ path: at("purl"), message: `must be 1..${PURL_MAX} characters` });
    else if (seen.has(l.purl)) v.push({ path: at("purl"), message: "is named twice" });
    seen.add(l.purl);
    if (!l.expression.trim() || l.expression.length > EXPRESSION_MAX)
      v.push({ path: at("expression"), message: `must be 1..${EXPRESSION_MAX} characters` });
    if (l.licenseIds.length > IDS_MAX) v.push({ path: at("license_ids"), message: `must hold at most ${IDS_MAX}` });
    if (l.licenseIds.some((id) => !id || id.length > ID_MAX))
      v.push({ path: at("license_ids"), message: `each must be 1..${ID_MAX} characters` });
    if (!(LICENSE_REGISTRIES as readonly string[]).includes(l.registry))
      v.push({ path: at("registry"), message: `must be one of ${LICENSE_REGISTRIES.join(", ")}` });
    return {
      purl: l.purl,
      expression: l.expression,
      licenseIds: [...new Set(l.licenseIds)].sort(),
      registry: l.registry,
    };
  });
}
