// Organizations: the top of the tenancy. A fresh deployment has one, "default", seeded by migration.
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { Organization, type OrganizationRow } from "./entities/organization.ts";

export type { OrganizationRow };

export async function listOrganizations(
  em: EntityManager,
  limit: number,
  offset: number,
): Promise<{ rows: OrganizationRow[]; total: number }> {
  const [rows, total] = await em.findAndCount(
    Organization,
    {},
    { ...SNAPSHOT, orderBy: { createdAt: "asc", id: "asc" }, limit, offset },
  );
  return { rows, total };
}

export async function organizationExists(em: EntityManager, id: string): Promise<boolean> {
  return (await em.count(Organization, { id })) > 0;
}

/** The organization a request that names none belongs to: the only one, or null when there are several. */
export async function soleOrganizationId(em: EntityManager): Promise<string | null> {
  const rows = await em.find(Organization, {}, { ...SNAPSHOT, fields: ["id"], limit: 2 });
  return rows.length === 1 ? rows[0]!.id : null;
}
