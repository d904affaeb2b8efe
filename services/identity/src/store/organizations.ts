// Organizations: the top of the tenancy. A fresh deployment has one, "default", seeded by migration.
import type { EntityManager } from "@mikro-orm/postgresql";

export interface OrganizationRow { id: string; name: string; slug: string; created_at: Date; updated_at: Date }

export async function listOrganizations(em: EntityManager, limit: number, offset: number): Promise<{ rows: OrganizationRow[]; total: number }> {
  const [count] = await em.execute<{ n: number }[]>("select count(*)::int as n from organizations");
  const rows = await em.execute<OrganizationRow[]>(
    "select id, name, slug, created_at, updated_at from organizations order by created_at, id limit ? offset ?", [limit, offset]);
  return { rows, total: count?.n ?? 0 };
}

export async function organizationExists(em: EntityManager, id: string): Promise<boolean> {
  const [row] = await em.execute<{ id: string }[]>("select id from organizations where id = ?", [id]);
  return row !== undefined;
}

/** The organization a request that names none belongs to: the only one, or null when there are several. */
export async function soleOrganizationId(em: EntityManager): Promise<string | null> {
  const rows = await em.execute<{ id: string }[]>("select id from organizations limit 2");
  return rows.length === 1 ? rows[0]!.id : null;
}
