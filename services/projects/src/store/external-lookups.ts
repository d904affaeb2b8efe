// The stored vulnerabilities by package or by advisory id (GET /v1/external-packages, /v1/external-advisories).
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";
import { COMPONENT_ROWS, LATEST_SNAPSHOTS } from "./inventory/relations.ts";

/** Projects whose holders a lookup reads at most (each is then checked against the caller). */
export const HOLDING_PROJECTS_MAX = 500;

export async function packageAdvisoryIds(em: EntityManager, ecosystem: string, name: string): Promise<string[]> {
  const rows = await rawQuery(
    em,
    `select distinct vulnerability_id from package_vulnerabilities where ecosystem = ? and name = ?
     order by vulnerability_id`,
    [ecosystem, name],
    { vulnerabilityId: column.text },
  );
  return rows.map((r) => r.vulnerabilityId);
}

/** The newest snapshots holding the package: per project, its versions and its components' licenses. */
export async function holdingProjects(
  em: EntityManager,
  ecosystem: string,
  name: string,
): Promise<{ projectId: string; versions: string[]; licenses: string[] }[]> {
  return rawQuery(
    em,
    `select sp.project_id, jsonb_agg(distinct sp.version) as versions,
       coalesce(jsonb_agg(distinct c.license) filter (where c.license is not null), '[]'::jsonb) as licenses
     from snapshot_packages sp join (${COMPONENT_ROWS}) c on c.id = sp.component_row_id
     where sp.ecosystem = ? and sp.name = ? and sp.scan_id in (${LATEST_SNAPSHOTS})
     group by sp.project_id order by sp.project_id limit ?`,
    [ecosystem, name, HOLDING_PROJECTS_MAX],
    { projectId: column.text, versions: column.json<string[]>(), licenses: column.json<string[]>() },
  );
}

export interface AdvisoryRow {
  alias: string;
  id: string;
  aliases: string[];
  summary: string;
  cvssScore: number | null;
  cvssVector: string;
}

/** The vulnerability an id names (its own or an alias; exact first, then ignoring case). */
export async function advisoryByAlias(em: EntityManager, id: string): Promise<AdvisoryRow | null> {
  const [row] = await rawQuery(
    em,
    `select a.alias, v.id, v.aliases, v.summary, v.cvss_score::text, v.cvss_vector
     from vulnerability_aliases a join vulnerabilities v on v.id = a.vulnerability_id
     where a.alias = ? or upper(a.alias) = upper(?)
     order by (a.alias = ?) desc limit 1`,
    [id, id, id],
    {
      alias: column.text,
      id: column.text,
      aliases: column.json<string[]>(),
      summary: column.text,
      cvssScore: column.text.nullable,
      cvssVector: column.text,
    },
  );
  return row ? { ...row, cvssScore: row.cvssScore === null ? null : Number(row.cvssScore) } : null;
}
