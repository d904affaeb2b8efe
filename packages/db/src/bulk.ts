// Bulk writes the ORM cannot make fast (docs/adr/0005): a transaction on one of the ORM's own pool connections
// (the service's schema on its search_path) that can stream rows in with COPY FROM STDIN (pg-copy-streams), besides
// ordinary statements. Used where thousands of rows land at once (a scan's inventory), never for row-by-row work.
import { once } from "node:events";
import type { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Pool, PoolClient } from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { commitGuardOf } from "./commit-guard.ts";
import type { Columns, RowOf } from "./raw-query.ts";

/**
 * A JSON document kept as its text (JSON.stringify's) rather than as objects: a few times smaller in memory while a
 * bulk write holds thousands of them. COPY writes it as it writes an object.
 */
export class JsonText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** A value COPY can carry: null is SQL NULL; objects, arrays and JsonText are written as JSON (json/jsonb columns). */
export type CopyValue = string | number | boolean | bigint | Date | null | object;

export interface BulkTransaction {
  /** A query with $1.. placeholders, answering the declared columns (as rawQuery does). */
  query<C extends Columns = Record<never, never>>(
    sql: string,
    params?: readonly unknown[],
    columns?: C,
  ): Promise<RowOf<C>[]>;
  /** A statement whose rows are not wanted; answers the rows it affected. */
  statement(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Streams `rows` into `table` (unqualified, so in the service's schema) with COPY; answers how many were sent. */
  copyRows(table: string, columns: readonly string[], rows: Iterable<readonly CopyValue[]>): Promise<number>;
}

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

// A JSON escape of a UTF-16 surrogate, after an even run of backslashes (so the backslash is an escape, not text).
// JSON.stringify writes a well-formed pair as the character itself, so every such escape it writes is a lone one.
const ESCAPED_SURROGATE = /(?<!\\)((?:\\\\)*)\\u[dD][89a-fA-F][0-9a-fA-F]{2}/g;
const ESCAPED_NUL = /(?<!\\)((?:\\\\)*)\\u0000/g;

// COPY's text format: backslash, tab, newline and carriage return escaped; \N is NULL. This is the one place every
// bulk-written value passes, so it is where values PostgreSQL refuses are made acceptable: NUL (text and jsonb cannot
// hold it) is dropped, and a lone UTF-16 surrogate (an SBOM's "\ud800" parses into one; jsonb refuses its escape,
// UTF-8 has no encoding for it) becomes U+FFFD, as a UTF-8 decoder does with a broken sequence.
function copyField(value: CopyValue): string {
  if (value === null) return "\\N";
  switch (typeof value) {
    case "number":
    case "bigint":
    case "boolean":
      return String(value); // nothing in them to escape
    case "string": {
      const text = value.includes("\0") ? value.replaceAll("\0", "") : value;
      return copyEscaped(text.isWellFormed() ? text : text.toWellFormed());
    }
  }
  if (value instanceof Date) return value.toISOString();
  const json = value instanceof JsonText ? value.text : JSON.stringify(value);
  // Both escapes start with \u: most documents have none, and are not searched twice more (ingestion's COPY).
  return copyEscaped(
    json.includes("\\u") ? json.replace(ESCAPED_NUL, "$1").replace(ESCAPED_SURROGATE, "$1\\ufffd") : json,
  );
}

const COPY_SPECIAL = /[\\\t\n\r]/;

function copyEscaped(text: string): string {
  if (!COPY_SPECIAL.test(text)) return text;
  return text.replace(/[\\\t\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r"));
}

async function copyInto(
  client: PoolClient,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly CopyValue[]>,
): Promise<number> {
  for (const name of [table, ...columns])
    if (!IDENTIFIER.test(name)) throw new TypeError(`not a plain identifier: ${name}`);
  const stream: Writable = client.query(copyFrom(`copy ${table} (${columns.join(", ")}) from stdin`));
  const done = finished(stream);
  let count = 0;
  let chunk = "";
  const flush = async () => {
    if (chunk.length === 0) return;
    const ok = stream.write(chunk);
    chunk = "";
    if (!ok) await Promise.race([once(stream, "drain"), done]);
  };
  try {
    for (const row of rows) {
      if (row.length !== columns.length) throw new TypeError(`a row of ${row.length} values for ${columns.length}`);
      chunk += row.map(copyField).join("\t") + "\n";
      count++;
      if (chunk.length >= 256 * 1024) await flush();
    }
    await flush();
    stream.end();
    await done;
  } catch (err) {
    stream.destroy(err as Error);
    await done.catch(() => undefined);
    throw err;
  }
  return count;
}

/**
 * Runs `work` in one transaction on a connection of the ORM's pool: committed when it resolves, rolled back when it
 * throws (nothing it wrote remains). The EntityManager does not see this transaction: do every read and write of
 * the unit of work through `tx`.
 */
export async function bulkTransaction<T>(orm: MikroORM, work: (tx: BulkTransaction) => Promise<T>): Promise<T> {
  const pool: Pool = await orm.em.getConnection().getNativeClient();
  const client = await pool.connect();
  const tx: BulkTransaction = {
    async query<C extends Columns = Record<never, never>>(
      sql: string,
      params: readonly unknown[] = [],
      columns: C = {} as C,
    ): Promise<RowOf<C>[]> {
      const result = await client.query<Record<string, unknown>>(sql, [...params]);
      const names = Object.keys(columns);
      return result.rows.map((row) => {
        const out: Record<string, unknown> = {};
        for (const name of names) {
          const source = name in row ? name : snakeCase(name);
          if (!(source in row)) throw new TypeError(`the query answered no column ${source}`);
          out[name] = columns[name]!.convert(row[source]);
        }
        return out as RowOf<C>;
      });
    },
    async statement(sql, params = []) {
      return (await client.query(sql, [...params])).rowCount ?? 0;
    },
    copyRows: (table, columns, rows) => copyInto(client, table, columns, rows),
  };
  let broken: Error | undefined;
  let settle: (() => Promise<void>) | null = null;
  try {
    await client.query("begin");
    const result = await work(tx);
    settle =
      (await commitGuardOf(orm)?.beforeCommit(
        async (sql) => (await client.query<Record<string, unknown>>(sql)).rows,
      )) ?? null;
    await client.query("commit");
    return result;
  } catch (err) {
    try {
      await client.query("rollback");
    } catch (rollbackError) {
      // A connection that cannot roll back is not given back to the pool.
      broken = rollbackError as Error;
    }
    throw err;
  } finally {
    client.release(broken);
    await settle?.();
  }
}
