// The shape an organization's login tables share (registry_credentials, tracker_credentials): one login per
// (organization, host), listed by host, created or replaced whole, removed by id. Each table's module
// (registry-credentials.ts, tracker-credentials.ts) parametrizes it and stays the one that reads or writes the table
// (docs/adr/0005). Reads never load the sealed secret (a lazy column).
import { randomUUID } from "node:crypto";
import type { EntityManager, EntityName, FilterQuery } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";

/** The columns every login table has (and, for the query builder, its others as they are written). */
interface LoginRow {
  id: string;
  organizationId: string;
}
type LoginColumns = LoginRow & Record<string, unknown>;

export interface OrganizationLoginTable<Row, Write> {
  list(em: EntityManager, organizationId: string): Promise<Row[]>;
  /** Creates the login of (organization, host) or replaces its other columns; answers it and whether it is new. */
  put(em: EntityManager, w: Write): Promise<{ row: Row; created: boolean }>;
  /** Removes the organization's login; false when it has none of that id. */
  remove(em: EntityManager, organizationId: string, id: string): Promise<boolean>;
}

export function organizationLoginTable<
  Row extends LoginRow,
  Write extends { organizationId: string },
  Host extends keyof Write & keyof Row & string,
>(entity: EntityName<Row>, host: Host): OrganizationLoginTable<Row, Write> {
  return {
    list(em, organizationId) {
      return em.find(entity, { organizationId } as FilterQuery<Row>, {
        ...SNAPSHOT,
        orderBy: { [host]: "asc" } as never,
      });
    },

    async put(em, w) {
      const id = randomUUID();
      const { organizationId: _organization, [host]: _host, ...replaced } = w;
      // The builder typed by the columns the shape knows; the table's own columns pass through as written.
      const rows: unknown = await em
        .createQueryBuilder(entity as EntityName<LoginColumns>)
        .insert({ id, ...w })
        .onConflict(["organizationId", host])
        .merge({ ...replaced, updatedAt: new Date() })
        .returning(["id"])
        .execute("all");
      const storedId = (rows as { id: string }[])[0]!.id;
      const row = await em.findOneOrFail(entity, { id: storedId } as FilterQuery<Row>, SNAPSHOT);
      return { row, created: storedId === id };
    },

    async remove(em, organizationId, id) {
      return (await em.nativeDelete(entity, { id, organizationId } as FilterQuery<Row>)) > 0;
    },
  };
}
