// What the inventory publishes to other owners' statements (ADR 9): plain selects of its tables that such a
// statement joins as a derived table. PostgreSQL folds them into the statement, so the plan is the one naming the
// table gave; the columns named here are the ones other modules may read.

/** The scan of each project's newest snapshot (the default anchor of every read, the one re-matching updates). */
export const LATEST_SNAPSHOTS = `select distinct on (project_id) scan_id from inventory_snapshots
  order by project_id, ingested_at desc, scan_id desc`;

/** Each component row with its identity and what findings, the gate and the package lookups show of it. */
export const COMPONENT_ROWS = `select id, scan_id, component_id, key, name, version, purl, license, license_category,
  malicious_state from inventory_components`;
