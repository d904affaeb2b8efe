// Deleting deleted scans' rows in statements of at most DELETE_BATCH_ROWS rows each, so every statement stays short
// whatever a snapshot holds. Raw SQL (ADR 5): a bounded delete, which the ORM cannot express. Each owner passes its
// own table.
import type { EntityManager } from "@mikro-orm/postgresql";
import { rawStatement } from "@sca/db";

/** Rows one delete statement removes at most. */
export const DELETE_BATCH_ROWS = 5000;

/** Deletes `table`'s rows of these scans (by its `key` column), checking `signal` between statements. */
export async function deleteBatched(
  em: EntityManager,
  table: string,
  key: string,
  scanIds: readonly string[],
  signal: AbortSignal,
): Promise<void> {
  // A PostgreSQL array literal: the ids are UUIDs, so nothing in them needs quoting.
  const array = `{${scanIds.join(",")}}`;
  for (;;) {
    signal.throwIfAborted();
    const deleted = await rawStatement(
      em,
      `delete from ${table} where ${key} in (select ${key} from ${table} where scan_id = any(?::uuid[]) limit ${DELETE_BATCH_ROWS})`,
      [array],
    );
    if (deleted < DELETE_BATCH_ROWS) return;
  }
}
