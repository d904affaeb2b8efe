// The newest snapshots holding a package, per project (GET /v1/external-packages): raw SQL (ADR 5), grouped in
// PostgreSQL. The package's advisories are the scanner-runner's to answer (clients/advisory-database.ts).
import type { EntityManager } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";
import { COMPONENT_ROWS, LATEST_SNAPSHOTS } from "../inventory/relations.ts";

/** Projects whose holders a lookup reads at most (each is then checked against the caller). */
export const HOLDING_PROJECTS_MAX = 500;

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
