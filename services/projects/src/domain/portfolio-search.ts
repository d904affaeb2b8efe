// The portfolio search's request rules (docs/dashboards.md, "Portfolio search"): one thing looked for, the spec's
// search page (page 1.., size 1..100, default 25), and the export's cap.
import type { FieldViolation } from "@sca/problem";
import { isPageNumber, isPageSize, PAGE_MAX, SEARCH_PAGE_SIZE } from "@sca/paging";
import { packageOfPurl } from "@sca/purl-package";
import { inVersionRange, isVersionRange, parseVersionRange, schemeOf, type VersionRange } from "@sca/version-order";

/** The CSV export's most rows; also the most components of one name a range search reads. */
export const SEARCH_EXPORT_MAX = 100_000;

/** A package search's version: the exact text, or a range read in each component's ecosystem order. */
export type VersionQuery = { kind: "exact"; text: string } | { kind: "range"; range: VersionRange };

export type PortfolioQuery =
  | { kind: "package"; name: string; purlType: string | null; version: VersionQuery | null }
  | { kind: "vulnerability"; id: string }
  | { kind: "license"; spdxId: string };

export interface SearchInput {
  ecosystem?: string;
  packageName?: string;
  version?: string;
  vulnerability?: string;
  license?: string;
  page: number;
  size: number;
}

const text = (v: string | undefined) => (v === undefined || v.trim() === "" ? null : v.trim());

/** What the request looks for and its window; violations for none or several, or a window past its bounds. */
export function searchOf(
  req: SearchInput,
  v: FieldViolation[],
): { query: PortfolioQuery | null; page: number; size: number } {
  const [name, vulnerability, license] = [text(req.packageName), text(req.vulnerability), text(req.license)];
  const given = [name, vulnerability, license].filter((x) => x !== null).length;
  if (given !== 1) v.push({ path: "query", message: "exactly one of package, vulnerability or license is required" });
  for (const [path, value] of [
    ["package", name],
    ["vulnerability", vulnerability],
    ["license", license],
    ["version", text(req.version)],
    ["ecosystem", text(req.ecosystem)],
  ] as const)
    if (value !== null && value.length > 255) v.push({ path, message: "at most 255 characters" });
  const version = versionOf(text(req.version), v);
  if ((text(req.version) !== null || text(req.ecosystem) !== null) && name === null)
    v.push({ path: "version", message: "version and ecosystem narrow a package search only" });
  const page = req.page || 1;
  const size = req.size || SEARCH_PAGE_SIZE.defaultSize;
  if (!isPageNumber(page)) v.push({ path: "page", message: `between 1 and ${PAGE_MAX}` });
  if (!isPageSize(size, SEARCH_PAGE_SIZE))
    v.push({ path: "size", message: `between 1 and ${SEARCH_PAGE_SIZE.maxSize}` });
  const query: PortfolioQuery | null =
    name !== null
      ? { kind: "package", name, purlType: text(req.ecosystem)?.toLowerCase() ?? null, version }
      : vulnerability !== null
        ? { kind: "vulnerability", id: vulnerability }
        : license !== null
          ? { kind: "license", spdxId: license }
          : null;
  return { query, page, size };
}

const RANGE_SYNTAX =
  "a version, or a range: comparators joined by commas (>=2.0,<2.15; operators < <= > >= = == !=), " +
  "intervals ([2.0,2.15), (,1.0],[1.2,)), alternatives joined by ||";

function versionOf(version: string | null, v: FieldViolation[]): VersionQuery | null {
  if (version === null) return null;
  if (!isVersionRange(version)) return { kind: "exact", text: version };
  const range = parseVersionRange(version);
  if (range === null) {
    v.push({ path: "version", message: RANGE_SYNTAX });
    return null;
  }
  return { kind: "range", range };
}

/**
 * Whether a component is in the range: its purl's version placed in its purl's ecosystem order. A component without
 * a purl, or of an ecosystem whose order we do not know, is in no range.
 */
export function componentInRange(range: VersionRange, purl: string | null): boolean {
  const named = purl ? packageOfPurl(purl) : null;
  if (named?.kind !== "package") return false;
  const scheme = schemeOf(named.package.ecosystem);
  return scheme !== null && inVersionRange(range, scheme, named.package.version);
}
