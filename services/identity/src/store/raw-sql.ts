import type { EntityManager } from "@mikro-orm/postgresql";

/** Runs SQL inside the entity manager's transaction when it has one (em.transactional), else on its own. */
export function query<T extends object = Record<string, unknown>>(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  return em.getConnection().execute<T[]>(sql, params, "all", em.getTransactionContext());
}

/** Raw queries answer timestamptz columns as text; these become Dates (null stays null). */
export function withDates<T extends object>(row: T, ...columns: (keyof T)[]): T {
  const out = { ...row };
  for (const c of columns) {
    const v = out[c] as unknown;
    if (v !== null && v !== undefined && !(v instanceof Date)) (out as Record<keyof T, unknown>)[c] = new Date(v as string);
  }
  return out;
}
