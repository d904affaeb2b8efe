// The stored vulnerabilities by package or by advisory id (GET /v1/external-packages, /v1/external-advisories). An
// advisory is read through the entities; raw SQL (ADR 5) for a package's distinct advisories and for the newest
// snapshots holding it, grouped per project in PostgreSQL.
import { raw, type EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery, SNAPSHOT } from "@sca/db";
import { Vulnerability, VulnerabilityAlias } from "../entities/findings.ts";
import { COMPONENT_ROWS, LATEST_SNAPSHOTS } from "../inventory/relations.ts";

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
  const alias =
    (await em.findOne(VulnerabilityAlias, { alias: id }, SNAPSHOT)) ??
    (await em.findOne(VulnerabilityAlias, { [raw("upper(alias)")]: raw("upper(?)", [id]) }, SNAPSHOT));
  if (!alias) return null;
  const v = await em.findOne(
    Vulnerability,
    { id: alias.vulnerabilityId },
    { ...SNAPSHOT, fields: ["id", "aliases", "summary", "cvssScore", "cvssVector"] },
  );
  if (!v) return null;
  return {
    alias: alias.alias,
    id: v.id,
    aliases: v.aliases,
    summary: v.summary,
    cvssScore: v.cvssScore === null ? null : Number(v.cvssScore),
    cvssVector: v.cvssVector,
  };
}
