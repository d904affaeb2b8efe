// Reading vulnerability findings with their vulnerability, component and triage (docs/findings.md, "Reads"). Raw SQL
// (ADR 5): one statement per page joining the four, sorted and searched by any of them, the total counted alongside
// with count(*) over (); a single finding is read by the same statement.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, containsPattern, rawQuery } from "@sca/db";
import type { FindingFilter, FindingSortKey } from "../../domain/finding-list.ts";
import { COMPONENT_ROWS } from "../inventory/relations.ts";

const FINDING_COLUMNS = {
  id: column.text,
  projectId: column.text,
  scanId: column.text,
  componentRowId: column.text,
  componentId: column.text,
  componentKey: column.text,
  componentName: column.text,
  componentVersion: column.text.nullable,
  purl: column.text.nullable,
  ecosystem: column.text,
  vulnerabilityId: column.text,
  aliases: column.json<string[]>(),
  summary: column.text,
  severity: column.text,
  cvssScore: column.text.nullable,
  cvssVector: column.text,
  epssScore: column.text.nullable,
  epssPercentile: column.text.nullable,
  knownExploited: column.boolean,
  kevDueDate: column.text,
  fixedVersions: column.json<string[]>(),
  publishedAt: column.timestamp.nullable,
  references: column.json<string[]>(),
  status: column.text,
  justification: column.text.nullable,
  responses: column.json<string[]>(),
  detail: column.text.nullable,
  version: column.integer,
  firstDetectedAt: column.timestamp,
  detectedAt: column.timestamp,
  removedAt: column.timestamp.nullable,
  statusUpdatedAt: column.timestamp,
  statusUpdatedBy: column.text.nullable,
  pendingStatus: column.text.nullable,
  pendingJustification: column.text.nullable,
  pendingResponses: column.json<string[]>().nullable,
  pendingDetail: column.text.nullable,
  pendingBy: column.text.nullable,
  pendingAt: column.timestamp.nullable,
};
type RawFinding = { [K in keyof typeof FINDING_COLUMNS]: ReturnType<(typeof FINDING_COLUMNS)[K]["convert"]> };
export type FindingRow = Omit<RawFinding, "cvssScore" | "epssScore" | "epssPercentile"> & {
  cvssScore: number | null;
  epssScore: number | null;
  epssPercentile: number | null;
};

const SELECT = `select f.id, f.project_id, f.scan_id, f.component_row_id, f.component_id, f.component_key,
    c.name as component_name, c.version as component_version, c.purl, f.ecosystem, f.vulnerability_id, v.aliases,
    v.summary, v.severity, v.cvss_score::text, v.cvss_vector, v.epss_score::text, v.epss_percentile::text,
    v.known_exploited, v.kev_due_date, f.fixed_versions, v.published_at, v."references", t.status, t.justification,
    t.responses, t.detail, t.version, t.first_detected_at, f.detected_at, f.removed_at,
    t.updated_at as status_updated_at, t.updated_by as status_updated_by, t.pending_status,
    t.pending_justification, t.pending_responses, t.pending_detail, t.pending_by, t.pending_at`;
const FROM = `from vulnerability_findings f
  join vulnerabilities v on v.id = f.vulnerability_id
  join (${COMPONENT_ROWS}) c on c.id = f.component_row_id
  join finding_triage t on t.project_id = f.project_id and t.component_key = f.component_key
    and t.vulnerability_id = f.vulnerability_id`;

// Doubles travel as text so that no float is rounded by the driver's parsing twice; read back with Number.
const rowOf = (r: RawFinding): FindingRow => ({
  ...r,
  cvssScore: r.cvssScore === null ? null : Number(r.cvssScore),
  epssScore: r.epssScore === null ? null : Number(r.epssScore),
  epssPercentile: r.epssPercentile === null ? null : Number(r.epssPercentile),
});

const ORDER: Record<FindingSortKey["field"], string> = {
  severity: "v.severity_rank",
  cvss: "v.cvss_score",
  epss: "v.epss_score",
  published: "v.published_at",
  vulnerability: "f.vulnerability_id",
  component: "c.name",
  status: "t.status",
  detected: "t.first_detected_at",
};

function whereOf(filter: FindingFilter, params: unknown[]): string {
  const parts: string[] = [];
  if (filter.severity) {
    parts.push("v.severity in (select jsonb_array_elements_text(?::jsonb))");
    params.push(JSON.stringify(filter.severity));
  }
  if (filter.status) {
    parts.push("t.status in (select jsonb_array_elements_text(?::jsonb))");
    params.push(JSON.stringify(filter.status));
  }
  if (filter.knownExploited !== undefined) {
    parts.push("v.known_exploited = ?");
    params.push(filter.knownExploited);
  }
  if (filter.hasFix !== undefined)
    parts.push(filter.hasFix ? "jsonb_array_length(f.fixed_versions) > 0" : "jsonb_array_length(f.fixed_versions) = 0");
  if (filter.pendingConfirmation !== undefined)
    parts.push(filter.pendingConfirmation ? "t.pending_status is not null" : "t.pending_status is null");
  if (filter.epssMin !== undefined) {
    parts.push("v.epss_score >= ?");
    params.push(filter.epssMin);
  }
  if (filter.componentId !== undefined) {
    parts.push("f.component_id::text = ?");
    params.push(filter.componentId);
  }
  if (filter.search !== undefined) {
    const p = containsPattern(filter.search);
    parts.push(`(c.name ilike ? or c.purl ilike ? or f.vulnerability_id ilike ? or v.aliases::text ilike ?)`);
    params.push(p, p, p, p);
  }
  return parts.map((p) => ` and ${p}`).join("");
}

/** A page of the snapshot's open findings and the whole count of matches. */
export async function listFindings(
  em: EntityManager,
  scanId: string,
  filter: FindingFilter,
  sort: FindingSortKey[],
  window: { limit: number; offset: number },
): Promise<{ rows: FindingRow[]; total: number }> {
  const params: unknown[] = [scanId];
  const where = whereOf(filter, params);
  // Unscored findings (no EPSS, no CVSS, no date) sort last in either direction.
  const order = [
    ...sort.map((k) => `${ORDER[k.field]} ${k.descending ? "desc" : "asc"} nulls last`),
    "f.vulnerability_id asc",
    "c.name asc",
    "f.id asc",
  ].join(", ");
  const rows = await rawQuery(
    em,
    `${SELECT}, count(*) over () as total ${FROM}
     where f.scan_id = ? and f.removed_at is null${where}
     order by ${order} limit ? offset ?`,
    [...params, window.limit, window.offset],
    { ...FINDING_COLUMNS, total: column.integer },
  );
  if (rows.length > 0 || window.offset === 0) return { rows: rows.map(rowOf), total: rows[0]?.total ?? 0 };
  const [count] = await rawQuery(
    em,
    `select count(*) as n ${FROM} where f.scan_id = ? and f.removed_at is null${where}`,
    params,
    { n: column.integer },
  );
  return { rows: [], total: count?.n ?? 0 };
}

export async function findingById(em: EntityManager, id: string): Promise<FindingRow | null> {
  const [row] = await rawQuery(em, `${SELECT} ${FROM} where f.id = ?`, [id], FINDING_COLUMNS);
  return row ? rowOf(row) : null;
}

/** Every open finding of the snapshot (the VEX export and import), at most `cap`. */
export async function snapshotFindings(em: EntityManager, scanId: string, cap: number): Promise<FindingRow[]> {
  const rows = await rawQuery(
    em,
    `${SELECT} ${FROM} where f.scan_id = ? and f.removed_at is null
     order by f.vulnerability_id, c.name, f.id limit ?`,
    [scanId, cap],
    FINDING_COLUMNS,
  );
  return rows.map(rowOf);
}
