// The REST API's Component resource (the gateway's componentJson of a Connect Component, docs/inventory.md) as
// PostgreSQL writes it, for the list's items_as_json: the same fields in the same order, with the same nulls and
// empty lists, timestamps as toISOString writes them (UTC, milliseconds). services/gateway/test/
// component-json-rows.test.ts holds the two forms equal on rows with every column set; a field added to the
// Component message and to componentJson is added here too.
const ISO_UTC = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
/** A timestamptz column as toISOString writes it (UTC, milliseconds); null stays null. */
export const isoSql = (column: string) => `to_char(${column} at time zone 'UTC', ${ISO_UTC})`;
const iso = isoSql;
const EMPTY = "'[]'::json";

const FIELDS: [name: string, sql: string][] = [
  ["id", "id"],
  ["component_id", "component_id"],
  ["project_id", "project_id"],
  ["scan_id", "scan_id"],
  ["name", "name"],
  ["version", "version"],
  ["purl", "purl"],
  ["direct", "direct"],
  ["depth", "depth"],
  ["dependency_scope", "dependency_scope"],
  ["license", "license"],
  ["license_category", "license_category"],
  ["severity_max", "severity_max"],
  ["currency_state", "currency_state"],
  ["currency_latest", "currency_latest"],
  ["currency_latest_release_date", "currency_latest_release_date"],
  ["eol_state", "eol_state"],
  ["eol_cycle", "eol_cycle"],
  ["eol_date", "eol_date"],
  ["eol_product", "eol_product"],
  ["eol_source", "eol_source"],
  ["malicious_state", "malicious_state"],
  ["malicious_id", "malicious_id"],
  ["malicious_source", "malicious_source"],
  ["obligations", EMPTY],
  ["vulnerabilities", EMPTY],
  ["type", "type"],
  ["group", "group_name"],
  ["cpe", "cpe"],
  // The message keeps a hash's algorithm and value only, "" when absent.
  [
    "hashes",
    `coalesce((select json_agg(json_build_object('algorithm', coalesce(h->>'algorithm', ''), 'value', ` +
      `coalesce(h->>'value', ''))) from jsonb_array_elements(hashes) h), ${EMPTY})`,
  ],
  ["declared_license", "declared_license"],
  ["concluded_license", "concluded_license"],
  ["license_ids", `coalesce(license_ids::json, ${EMPTY})`],
  ["supplier", "supplier"],
  ["author", "author"],
  ["description", "description"],
  ["bom_refs", `coalesce(bom_refs::json, ${EMPTY})`],
  ["created_at", iso("created_at")],
  ["updated_at", iso("updated_at")],
];

/** One inventory_components row as the resource's JSON text (json_build_object takes at most 100 arguments). */
export const COMPONENT_JSON_SQL = `json_build_object(${FIELDS.map(([name, sql]) => `'${name}', ${sql}`).join(", ")})::text`;
