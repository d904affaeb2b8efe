// Re-matching after an advisory refresh (docs/findings.md, "Re-matching"): the package versions the newest snapshots
// hold, the refreshed verdicts applied to their findings, and what the FindingsChanged events name of each change.
// Raw SQL (ADR 5): keyset walks and set-based statements over a JSON array of verdicts, never row by row.
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";
import type { PackageVersion } from "../../domain/package-version.ts";
import { COMPONENT_ROWS, LATEST_SNAPSHOTS } from "../inventory/relations.ts";
import { openTriage } from "./triage.ts";
import type { Verdict } from "./vulnerabilities.ts";

/**
 * The distinct package versions of the named packages held by the newest snapshot of any project, `chunk` at a
 * time, ordered so that the walk is a keyset (no offset).
 */
export async function* heldVersions(
  em: EntityManager,
  packages: { ecosystem: string; name: string }[],
  chunk: number,
): AsyncGenerator<PackageVersion[]> {
  if (packages.length === 0) return;
  let after: PackageVersion = { ecosystem: "", name: "", version: "" };
  for (;;) {
    const rows = await rawQuery(
      em,
      `select distinct sp.ecosystem, sp.name, sp.version
       from jsonb_to_recordset(?::jsonb) as x(ecosystem text, name text)
       join snapshot_packages sp on sp.ecosystem = x.ecosystem and sp.name = x.name
       where sp.scan_id in (${LATEST_SNAPSHOTS})
         and (sp.ecosystem, sp.name, sp.version) > (?, ?, ?)
       order by sp.ecosystem, sp.name, sp.version
       limit ?`,
      [JSON.stringify(packages), after.ecosystem, after.name, after.version, chunk],
      { ecosystem: column.text, name: column.text, version: column.text },
    );
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < chunk) return;
    after = rows[rows.length - 1]!;
  }
}

export interface FindingChangeRow {
  findingId: string;
  projectId: string;
  scanId: string;
  vulnerabilityId: string;
  componentRowId: string;
  componentKey: string;
}

/**
 * Applies refreshed verdicts to the newest snapshots holding their package versions: findings no longer in the
 * verdict are dated removed, new ones are inserted (a removed one coming back is reopened), and the new ones' triage
 * rows opened. Answers both sets; the components' severity follows (inventory/matching.ts recomputeSeverity).
 */
export async function applyRefresh(
  em: EntityManager,
  verdicts: Verdict[],
): Promise<{ added: FindingChangeRow[]; removed: FindingChangeRow[] }> {
  if (verdicts.length === 0) return { added: [], removed: [] };
  const versions = JSON.stringify(verdicts.map((v) => v.pkg));
  const pairs = JSON.stringify(
    verdicts.flatMap((v) =>
      v.vulnerabilities.map((a) => ({ ...v.pkg, vulnerability_id: a.id, fixed_versions: a.fixedVersions })),
    ),
  );
  const changeColumns = {
    findingId: column.text,
    projectId: column.text,
    scanId: column.text,
    vulnerabilityId: column.text,
    componentRowId: column.text,
    componentKey: column.text,
  };
  // The components of newest snapshots holding a refreshed version, and the new (version, vulnerability) pairs;
  // materialised once per statement (a function scan inside NOT EXISTS would be read again for every finding).
  const TARGETS = `rv as materialized (select distinct ecosystem, name, version
       from jsonb_to_recordset(?::jsonb) as x(ecosystem text, name text, version text)),
     latest as materialized (${LATEST_SNAPSHOTS}),
     targets as materialized (select sp.component_row_id, sp.scan_id, sp.project_id, sp.ecosystem, sp.name, sp.version
       from rv join snapshot_packages sp on sp.ecosystem = rv.ecosystem and sp.name = rv.name and sp.version = rv.version
       where sp.scan_id in (select scan_id from latest)),
     nv as materialized (select ecosystem, name, version, vulnerability_id, fixed_versions
       from jsonb_to_recordset(?::jsonb) as x(ecosystem text, name text, version text, vulnerability_id text,
         fixed_versions jsonb))`;
  const removed = await rawQuery(
    em,
    `with ${TARGETS}
     update vulnerability_findings f set removed_at = now()
     from targets t
     where f.component_row_id = t.component_row_id and f.removed_at is null
       and not exists (select 1 from nv
         where nv.ecosystem = t.ecosystem and nv.name = t.name and nv.version = t.version
           and nv.vulnerability_id = f.vulnerability_id)
     returning f.id as finding_id, f.project_id, f.scan_id, f.vulnerability_id, f.component_row_id, f.component_key`,
    [versions, pairs],
    changeColumns,
  );
  const added = await rawQuery(
    em,
    `with ${TARGETS}
     insert into vulnerability_findings as f (id, project_id, scan_id, component_row_id, component_id, component_key,
       ecosystem, vulnerability_id, fixed_versions, detected_at)
     select gen_random_uuid(), t.project_id, t.scan_id, t.component_row_id, c.component_id, c.key,
       t.ecosystem, nv.vulnerability_id, nv.fixed_versions, now()
     from targets t
     join (${COMPONENT_ROWS}) c on c.id = t.component_row_id
     join nv on nv.ecosystem = t.ecosystem and nv.name = t.name and nv.version = t.version
     on conflict (component_row_id, vulnerability_id) do update
       set removed_at = null, detected_at = now(), fixed_versions = excluded.fixed_versions
       where f.removed_at is not null
     returning f.id as finding_id, f.project_id, f.scan_id, f.vulnerability_id, f.component_row_id, f.component_key`,
    [versions, pairs],
    changeColumns,
  );
  await openTriage(em, added);
  return { added, removed };
}

/** A changed finding as a FindingsChanged event names it. */
export interface FindingChangeDetail {
  id: string;
  vulnerabilityId: string;
  severity: string;
  name: string;
  version: string | null;
  purl: string | null;
}

/** The named findings with their vulnerability's severity and their component. */
export async function findingChangeDetails(
  em: EntityManager,
  findingIds: readonly string[],
): Promise<FindingChangeDetail[]> {
  return rawQuery(
    em,
    `select f.id, f.vulnerability_id, v.severity, c.name, c.version, c.purl
     from vulnerability_findings f
     join vulnerabilities v on v.id = f.vulnerability_id
     join (${COMPONENT_ROWS}) c on c.id = f.component_row_id
     where f.id in (select value::uuid from jsonb_array_elements_text(?::jsonb))`,
    [JSON.stringify(findingIds)],
    {
      id: column.text,
      vulnerabilityId: column.text,
      severity: column.text,
      name: column.text,
      version: column.text.nullable,
      purl: column.text.nullable,
    },
  );
}
