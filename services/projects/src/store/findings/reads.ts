// Reading vulnerability findings with their vulnerability, component and triage (docs/findings.md, "Reads"). Raw SQL
// (ADR 5): the list's order of a filter and sort is one statement joining the four, sorting only the ids; a page and
// a single finding are read by id through the same joins.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, containsPattern, preparedQuery, rawQuery } from "@sca/db";
import type { FindingFilter, FindingSortKey } from "../../domain/finding-list.ts";
import { COMPONENT_ROWS } from "../inventory/relations.ts";
import { FINDING_JSON_SQL } from "./finding-json.ts";

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
  join (${COMPONENT_ROWS}) c on c.id = f.component_row_id and c.scan_id = f.scan_id
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

/**
 * The snapshot's open findings that match, in the list's order, as their ids (16 bytes each, one bytea): the whole
 * list is sorted once and kept (finding-orders.ts), so every page of it after the first is read by id. Only the ids
 * are sorted (a row of 40 columns each would be sorted and spilled to disk: the page statement with count(*) over ()
 * took 430-560 ms on 54,791 findings, whatever the offset).
 */
export async function findingOrder(
  em: EntityManager,
  scanId: string,
  filter: FindingFilter,
  sort: FindingSortKey[],
): Promise<Buffer> {
  const params: unknown[] = [scanId];
  const where = whereOf(filter, params);
  // Unscored findings (no EPSS, no CVSS, no date) sort last in either direction.
  const order = [
    ...sort.map((k) => `${ORDER[k.field]} ${k.descending ? "desc" : "asc"} nulls last`),
    "f.vulnerability_id asc",
    "c.name asc",
    "f.id asc",
  ].join(", ");
  const [row] = await rawQuery(
    em,
    `select string_agg(uuid_send(f.id), ''::bytea order by ${order}) as ids ${FROM}
     where f.scan_id = ? and f.removed_at is null${where}`,
    params,
    { ids: column.bytes.nullable },
  );
  return row?.ids ?? Buffer.alloc(0);
}

/** The page's findings by id, in the order of `ids` ($1; gone ones are left out). */
const IN_ORDER = `${FROM} join unnest($1::uuid[]) with ordinality as page(id, n) on page.id = f.id order by page.n`;
const uuidArray = (ids: readonly string[]) => `{${ids.join(",")}}`;

/** The findings of `ids` (read each time: the order is kept, not the rows), in that order. */
export async function findingsInOrder(em: EntityManager, ids: readonly string[]): Promise<FindingRow[]> {
  if (ids.length === 0) return [];
  // Prepared: planning the four joins costs about as much as running them for a page.
  const rows = await preparedQuery(
    em,
    "projects.findings-in-order.v1",
    `${SELECT} ${IN_ORDER}`,
    [uuidArray(ids)],
    FINDING_COLUMNS,
  );
  return rows.map(rowOf);
}

/**
 * The same findings, each as the REST API's resource in JSON (finding-json.ts), written by PostgreSQL: a string per
 * finding reaches Node rather than a row object and strings per column (the page's bytes: @sca/paging's
 * jsonArrayBytes).
 */
export async function findingsJsonInOrder(em: EntityManager, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await preparedQuery(
    em,
    "projects.findings-json-in-order.v3",
    `select ${FINDING_JSON_SQL} as "json" ${IN_ORDER}`,
    [uuidArray(ids)],
    { json: column.text },
  );
  return rows.map((r) => r.json);
}

export async function findingById(em: EntityManager, id: string): Promise<FindingRow | null> {
  const [row] = await preparedQuery(
    em,
    "projects.finding-by-id.v1",
    `${SELECT} ${FROM} where f.id = $1::uuid`,
    [id],
    FINDING_COLUMNS,
  );
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
