// The one way to run SQL the ORM cannot express (recursive queries, advisory locks, bulk ingestion); see
// docs/adr/0005. The caller declares each answered column with its type, which converts the driver's value
// (PostgreSQL answers timestamptz and bigint as text here) and types the row.
import type { EntityManager } from "@mikro-orm/postgresql";
import { CompiledQuery, type Kysely } from "kysely";
import type { Pool } from "pg";

export interface Column<T> {
  convert(value: unknown): T;
  /** The same column, where SQL null stays null. */
  nullable: Column<T | null>;
}

function columnType<T>(convert: (value: unknown) => T): Column<T> & { nullable: Column<T | null> } {
  const nullable: Column<T | null> = {
    convert: (v) => (v === null || v === undefined ? null : convert(v)),
    get nullable() {
      return nullable;
    },
  };
  return {
    convert: (v) => {
      if (v === null || v === undefined) throw new TypeError("a non-null column answered null");
      return convert(v);
    },
    nullable,
  };
}

export const column = {
  text: columnType((v) => String(v)),
  /** integer, bigint (text from the driver) and numeric within the safe integer range. */
  integer: columnType((v) => {
    const n = typeof v === "number" ? v : Number(v);
    if (!Number.isSafeInteger(n)) throw new TypeError(`not a safe integer: ${String(v)}`);
    return n;
  }),
  boolean: columnType((v) => (typeof v === "boolean" ? v : v === "t" || v === "true")),
  /** double precision and real (numbers from the driver), numeric (text from the driver). */
  number: columnType((v) => {
    const n = typeof v === "number" ? v : Number(v);
    if (!Number.isFinite(n)) throw new TypeError(`not a finite number: ${String(v)}`);
    return n;
  }),
  timestamp: columnType((v) => (v instanceof Date ? v : new Date(String(v)))),
  /** bytea. */
  bytes: columnType((v) => (Buffer.isBuffer(v) ? v : Buffer.from(v as Uint8Array))),
  /** json and jsonb, which the driver answers parsed; the caller names the shape it stored. */
  json: <T>() => columnType((v) => (typeof v === "string" ? JSON.parse(v) : v) as T),
};

export type Columns = Record<string, Column<unknown>>;
export type RowOf<C extends Columns> = { [K in keyof C]: C[K] extends Column<infer T> ? T : never };

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Runs `sql` (with `?` placeholders) inside the EntityManager's transaction when it has one, and answers the rows
 * with the declared columns only. A column `userId` reads the answered column `user_id` (or `userId` when the SQL
 * names it so); a statement whose answer is not needed (a lock) declares no columns.
 */
export async function rawQuery<C extends Columns = Record<never, never>>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
  columns: C = {} as C,
): Promise<RowOf<C>[]> {
  const rows = await em
    .getConnection()
    .execute<Record<string, unknown>[]>(sql, [...params], "all", em.getTransactionContext());
  return rowsOf(rows, columns);
}

/**
 * A read as rawQuery answers it, run as the named prepared statement `name` (`sql` with $1.. placeholders; one text
 * per name) on whichever pool connection takes it, outside any transaction. PostgreSQL then plans it once per
 * connection (after five custom plans it keeps the generic one when that is no dearer) instead of on every call:
 * for hot reads whose planning costs more than their run (the gate's facts: 2 to 3 ms of planning for 0.2 to 0.5 ms
 * of execution on a 10,000-component snapshot). Named statements live in the server session: a connection pooler
 * put in front of PostgreSQL must keep sessions (or, PgBouncer 1.21+, track prepared statements).
 */
export async function preparedQuery<C extends Columns = Record<never, never>>(
  em: EntityManager,
  name: string,
  sql: string,
  params: readonly unknown[] = [],
  columns: C = {} as C,
): Promise<RowOf<C>[]> {
  const pool: Pool = await em.getConnection().getNativeClient();
  const result = await pool.query<Record<string, unknown>>({ name, text: sql, values: [...params] });
  return rowsOf(result.rows, columns);
}

function rowsOf<C extends Columns>(rows: readonly Record<string, unknown>[], columns: C): RowOf<C>[] {
  const names = Object.keys(columns);
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const name of names) {
      const source = name in row ? name : snakeCase(name);
      if (!(source in row)) throw new TypeError(`the query answered no column ${source}`);
      out[name] = columns[name]!.convert(row[source]);
    }
    return out as RowOf<C>;
  });
}

/** Runs a statement whose rows are not wanted (a bounded delete, a lock) the same way; answers the rows it affected. */
export async function rawStatement(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<number> {
  const result = await em
    .getConnection()
    .execute<{ affectedRows: number }>(sql, [...params], "run", em.getTransactionContext());
  return result.affectedRows;
}

/**
 * rawQuery with its parameters bound ($1.. placeholders) instead of written into the statement's text, inside the
 * EntityManager's transaction when it has one. For parameters of megabytes (a JSON array of thousands of rows): the
 * ORM escapes each parameter character by character into a statement as long, and that copying and its garbage cost
 * more than the statement's own work (docs/adr/0005).
 */
export async function boundQuery<C extends Columns = Record<never, never>>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
  columns: C = {} as C,
): Promise<RowOf<C>[]> {
  const result = await boundExecutor(em).executeQuery<Record<string, unknown>>(CompiledQuery.raw(sql, [...params]));
  return rowsOf(result.rows, columns);
}

/** A statement whose rows are not wanted, its parameters bound as boundQuery binds them; answers the rows affected. */
export async function boundStatement(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<number> {
  const result = await boundExecutor(em).executeQuery(CompiledQuery.raw(sql, [...params]));
  return Number(result.numAffectedRows ?? 0);
}

/** The transaction the EntityManager runs (a Kysely transaction under MikroORM 7), else the ORM's own client. */
function boundExecutor(em: EntityManager): Kysely<unknown> {
  return em.getTransactionContext<Kysely<unknown>>() ?? em.getConnection().getClient<unknown>();
}
