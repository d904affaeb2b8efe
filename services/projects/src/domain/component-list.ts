// The component list's rules (the spec's GET /v1/projects/{id}/components): limit 1..500 (default 50) and
// offset >= 0, rejected past their bounds, never clamped; dependency_scope values other than required, optional
// and unspecified are dropped (only unknown values: nothing matches); sort by name, severity or license.
import { ProblemError, type FieldViolation } from "@sca/problem";
import type { ComponentFilter as FilterMessage } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { FINDING_SEVERITIES, type FindingSeverity } from "@sca/vocabulary";

export const COMPONENT_LIMIT_DEFAULT = 50;
export const COMPONENT_LIMIT_MAX = 500;
export const SEARCH_MAX = 255;
/** The worst severity's rank, the severity sort's key (0: none known). */
export const SEVERITY_RANK: Record<FindingSeverity, number> = {
  unknown: 1,
  info: 2,
  low: 3,
  medium: 4,
  high: 5,
  critical: 6,
};
export const SORT_FIELDS = ["name", "severity", "license"] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export type ScopeChoice = "required" | "optional" | "unspecified";
const SCOPE_CHOICES: readonly string[] = ["required", "optional", "unspecified"];
const CATEGORY = /^[a-z][a-z0-9_-]{0,31}$/;

export interface ComponentFilter {
  search?: string;
  severity?: string[];
  licenseCategory?: string[];
  direct?: boolean;
  /** Present when the query named any scope; empty when every value named was unknown (nothing matches). */
  dependencyScope?: ScopeChoice[];
  eol?: boolean;
  outdated?: boolean;
  malicious?: boolean;
}

export interface SortKey {
  field: SortField;
  descending: boolean;
}

const lowerAll = (values: string[]) => values.map((v) => v.trim().toLowerCase()).filter((v) => v.length > 0);

export function componentFilterOf(f: FilterMessage | undefined, v: FieldViolation[]): ComponentFilter {
  const out: ComponentFilter = {};
  if (!f) return out;
  if (f.search !== undefined) {
    if ([...f.search].length > SEARCH_MAX)
      v.push({ path: "query.search", message: `must be at most ${SEARCH_MAX} characters` });
    else if (f.search.trim()) out.search = f.search.trim();
  }
  const severity = lowerAll(f.severity);
  for (const s of severity)
    if (!(FINDING_SEVERITIES as readonly string[]).includes(s))
      v.push({ path: "query.severity", message: `must be among ${FINDING_SEVERITIES.join(", ")}` });
  if (severity.length) out.severity = [...new Set(severity)];
  const categories = lowerAll(f.licenseCategory);
  for (const c of categories)
    if (!CATEGORY.test(c)) v.push({ path: "query.license_category", message: "must be a license category" });
  if (categories.length) out.licenseCategory = [...new Set(categories)];
  if (f.direct !== undefined) out.direct = f.direct;
  const scopes = lowerAll(f.dependencyScope);
  if (scopes.length)
    out.dependencyScope = [...new Set(scopes.filter((s) => SCOPE_CHOICES.includes(s)))] as ScopeChoice[];
  if (f.eol !== undefined) out.eol = f.eol;
  if (f.outdated !== undefined) out.outdated = f.outdated;
  if (f.malicious !== undefined) out.malicious = f.malicious;
  return out;
}

/** `sort` (comma-separated fields, "-" inverting one) under `order` (asc or desc); default name ascending. */
export function sortKeysOf(sort: string, order: string, v: FieldViolation[]): SortKey[] {
  const o = order.trim().toLowerCase() || "asc";
  if (o !== "asc" && o !== "desc") v.push({ path: "query.order", message: "must be asc or desc" });
  const keys: SortKey[] = [];
  for (const part of (sort.trim() || "name").split(",")) {
    const token = part.trim().toLowerCase();
    const inverted = token.startsWith("-");
    const field = inverted ? token.slice(1) : token;
    if (!(SORT_FIELDS as readonly string[]).includes(field)) {
      v.push({ path: "query.sort", message: `must be ${SORT_FIELDS.join(", ")} (a leading - inverts one)` });
      continue;
    }
    if (keys.some((k) => k.field === field)) continue;
    keys.push({ field: field as SortField, descending: (o === "desc") !== inverted });
  }
  return keys;
}

export interface ComponentWindow {
  limit: number;
  offset: number;
}

export function componentWindowOf(limit: number, offset: number, v: FieldViolation[]): ComponentWindow {
  const l = limit === 0 ? COMPONENT_LIMIT_DEFAULT : limit;
  if (l < 1 || l > COMPONENT_LIMIT_MAX)
    v.push({ path: "query.limit", message: `must be between 1 and ${COMPONENT_LIMIT_MAX}` });
  if (offset < 0) v.push({ path: "query.offset", message: "must be at least 0" });
  return { limit: l, offset };
}

/** Throws the 422 of the violations gathered, if any. */
export function rejectViolations(v: FieldViolation[]): void {
  if (v.length) throw ProblemError.validation(v);
}
