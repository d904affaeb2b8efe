// The REST API's VulnerabilityFinding (the gateway's findingJson of a Connect VulnerabilityFinding, docs/findings.md)
// as PostgreSQL writes it, for the list's items_as_json: the same fields in the same order, with the same nulls
// ("" and null both answer null where findingJson writes `|| null`) and empty lists, timestamps as toISOString writes
// them. services/gateway/test/vulnerability-findings.test.ts holds each listed finding equal to its detail (which
// the gateway writes with findingJson); a field added to the message and to findingJson is added here too. Over the
// aliases of reads.ts (f findings, v vulnerabilities, c components, t triage).
import { isoSql } from "../inventory/component-json.ts";

const orNull = (column: string) => `nullif(${column}, '')`;

const PENDING = `case when ${orNull("t.pending_status")} is null then null else json_build_object(
  'status', t.pending_status, 'justification', ${orNull("t.pending_justification")},
  'response', coalesce(t.pending_responses::json, '[]'::json), 'detail', ${orNull("t.pending_detail")},
  'requested_by', ${orNull("t.pending_by")}, 'requested_at', ${isoSql("t.pending_at")}) end`;

const FIELDS: [name: string, sql: string][] = [
  ["id", "f.id"],
  ["project_id", "f.project_id"],
  ["scan_id", "f.scan_id"],
  ["component_id", "f.component_id"],
  ["component_row_id", "f.component_row_id"],
  ["component_name", "c.name"],
  ["component_version", "c.version"],
  ["purl", "c.purl"],
  ["ecosystem", "f.ecosystem"],
  ["vulnerability_id", "f.vulnerability_id"],
  ["aliases", "v.aliases"],
  ["summary", "v.summary"],
  ["severity", "v.severity"],
  ["cvss_score", "v.cvss_score"],
  ["cvss_vector", orNull("v.cvss_vector")],
  ["epss_score", "v.epss_score"],
  ["epss_percentile", "v.epss_percentile"],
  ["known_exploited", "v.known_exploited"],
  ["kev_due_date", orNull("v.kev_due_date")],
  ["fixed_versions", "f.fixed_versions"],
  ["published_at", isoSql("v.published_at")],
  ["references", 'v."references"'],
  ["status", "t.status"],
  ["justification", orNull("t.justification")],
  ["response", "t.responses"],
  ["detail", orNull("t.detail")],
  ["version", "t.version"],
  ["first_detected_at", isoSql("t.first_detected_at")],
  ["detected_at", isoSql("f.detected_at")],
  ["removed_at", isoSql("f.removed_at")],
  ["status_updated_at", isoSql("t.updated_at")],
  ["status_updated_by", orNull("t.updated_by")],
  ["pending_status_change", PENDING],
];

/** One finding as the resource's JSON text. */
export const FINDING_JSON_SQL = `json_build_object(${FIELDS.map(([name, sql]) => `'${name}', ${sql}`).join(", ")})::text`;
