// The vulnerability findings list's rules (GET /v1/projects/{id}/vulnerabilities; docs/findings.md): the offset
// window of per-project lists (limit 1..500, default 50), filters, and the spec's sort rule (comma-separated fields,
// a leading "-" descending).
import type { FieldViolation } from "@sca/problem";
import type { FindingFilter as FilterMessage } from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import { SEARCH_MAX } from "./component-list.ts";
import { FINDING_SEVERITIES, VEX_STATES } from "@sca/vocabulary";

export const FINDING_SORT_FIELDS = [
  "severity",
  "cvss",
  "epss",
  "published",
  "vulnerability",
  "component",
  "status",
  "detected",
] as const;
export type FindingSortField = (typeof FINDING_SORT_FIELDS)[number];
/** Most severe first, then the likeliest to be exploited. */
export const FINDING_DEFAULT_SORT = "-severity,-epss";

export interface FindingFilter {
  severity?: string[];
  status?: string[];
  knownExploited?: boolean;
  search?: string;
  epssMin?: number;
  hasFix?: boolean;
  componentId?: string;
  /** Only findings with (true) or without (false) a status change waiting for a second person. */
  pendingConfirmation?: boolean;
}

export interface FindingSortKey {
  field: FindingSortField;
  descending: boolean;
}

const lowerAll = (values: string[]) => [
  ...new Set(values.map((v) => v.trim().toLowerCase()).filter((v) => v.length > 0)),
];

export function findingFilterOf(f: FilterMessage | undefined, v: FieldViolation[]): FindingFilter {
  const out: FindingFilter = {};
  if (!f) return out;
  const severity = lowerAll(f.severity);
  for (const s of severity)
    if (!(FINDING_SEVERITIES as readonly string[]).includes(s))
      v.push({ path: "query.severity", message: `must be among ${FINDING_SEVERITIES.join(", ")}` });
  if (severity.length) out.severity = severity;
  const status = lowerAll(f.status);
  for (const s of status)
    if (!(VEX_STATES as readonly string[]).includes(s))
      v.push({ path: "query.status", message: `must be among ${VEX_STATES.join(", ")}` });
  if (status.length) out.status = status;
  if (f.knownExploited !== undefined) out.knownExploited = f.knownExploited;
  if (f.hasFix !== undefined) out.hasFix = f.hasFix;
  if (f.pendingConfirmation !== undefined) out.pendingConfirmation = f.pendingConfirmation;
  if (f.search !== undefined) {
    if ([...f.search].length > SEARCH_MAX)
      v.push({ path: "query.search", message: `must be at most ${SEARCH_MAX} characters` });
    else if (f.search.trim()) out.search = f.search.trim();
  }
  if (f.epssMin !== undefined) {
    if (!(f.epssMin >= 0 && f.epssMin <= 1)) v.push({ path: "query.epss_min", message: "must be between 0 and 1" });
    else out.epssMin = f.epssMin;
  }
  if (f.componentId !== undefined) out.componentId = f.componentId.toLowerCase();
  return out;
}

/** `sort`: comma-separated fields, each ascending unless it starts with "-"; a field named twice counts once. */
export function findingSortOf(sort: string, v: FieldViolation[]): FindingSortKey[] {
  const keys: FindingSortKey[] = [];
  for (const part of (sort.trim() || FINDING_DEFAULT_SORT).split(",")) {
    const token = part.trim().toLowerCase();
    const descending = token.startsWith("-");
    const field = descending ? token.slice(1) : token;
    if (!(FINDING_SORT_FIELDS as readonly string[]).includes(field)) {
      v.push({
        path: "query.sort",
        message: `must be among ${FINDING_SORT_FIELDS.join(", ")} (a leading - sorts descending)`,
      });
      continue;
    }
    if (!keys.some((k) => k.field === field)) keys.push({ field: field as FindingSortField, descending });
  }
  return keys;
}
