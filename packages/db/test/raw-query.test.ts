import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { MikroORM } from "@mikro-orm/postgresql";
import {
  boundQuery,
  boundStatement,
  column,
  Migration,
  migrateToHead,
  openDatabase,
  Pipelined,
  preparedQuery,
  rawQuery,
} from "@sca/db";
import { testServers, uniqueName } from "@sca/testkit";

class Migration1_CreateEvents extends Migration {
  override up(): void {
    this.addSql(
      "create table events (id bigint primary key, happened_at timestamptz not null, note text null, seen boolean not null)",
    );
  }
}

describe("rawQuery", () => {
  const schema = uniqueName("t_raw");
  let orm: MikroORM;

  beforeAll(async () => {
    orm = await openDatabase({
      url: testServers().databaseUrl,
      schema,
      entities: [],
      migrations: [Migration1_CreateEvents],
    });
    await migrateToHead(orm);
  });

  afterAll(async () => {
    await orm.em.getConnection().execute(`drop schema if exists "${schema}" cascade`);
    await orm.close();
  });

  const columns = {
    id: column.integer,
    happenedAt: column.timestamp,
    note: column.text.nullable,
    seen: column.boolean,
  };

  it("converts each declared column (timestamptz to Date, bigint to number) and answers only those", async () => {
    const at = new Date("2026-11-24T05:00:00.123Z");
    await rawQuery(orm.em.fork(), "insert into events values (?, ?, null, true)", [9_007_199_254_740_991, at]);
    const [row] = await rawQuery(orm.em.fork(), "select *, 1 as extra from events", [], columns);
    expect(row).toEqual({ id: 9_007_199_254_740_991, happenedAt: at, note: null, seen: true });
    expect(row!.happenedAt).toBeInstanceOf(Date);
  });

  it("runs inside the EntityManager's transaction", async () => {
    await orm.em.fork().transactional(async (em) => {
      await rawQuery(em, "insert into events values (2, now(), 'inside', false)");
      expect(await rawQuery(em, "select * from events where id = 2", [], columns)).toHaveLength(1);
      expect(await rawQuery(orm.em.fork(), "select * from events where id = 2", [], columns)).toHaveLength(0);
    });
  });

  it("refuses a declared column the query does not answer, and null in a non-null column", async () => {
    await expect(rawQuery(orm.em.fork(), "select id from events", [], { missing: column.text })).rejects.toThrow(
      "no column missing",
    );
    await expect(rawQuery(orm.em.fork(), "select null as note", [], { note: column.text })).rejects.toThrow(
      "answered null",
    );
  });

  it("binds boundQuery's and boundStatement's parameters ($n), in the EntityManager's transaction or not", async () => {
    // A parameter the ORM would have to escape (quotes, a backslash, a question mark) arrives as it was sent.
    const note = "it's a \\ and a ? in 'quotes'";
    const rows = JSON.stringify([
      { id: 10, note },
      { id: 11, note: null },
    ]);
    await orm.em.fork().transactional(async (em) => {
      const written = await boundStatement(
        em,
        `insert into events (id, happened_at, note, seen)
         select id, now(), note, $2 from jsonb_to_recordset($1::jsonb) as x(id bigint, note text)`,
        [rows, true],
      );
      expect(written).toBe(2);
      const outside = await boundQuery(orm.em.fork(), "select id from events where id between $1 and $2", [10, 11], {
        id: column.integer,
      });
      expect(outside).toEqual([]);
    });
    const read = await boundQuery(
      orm.em.fork(),
      "select id, note from events where id between $1 and $2 order by id",
      [10, 11],
      {
        id: column.integer,
        note: column.text.nullable,
      },
    );
    expect(read).toEqual([
      { id: 10, note },
      { id: 11, note: null },
    ]);
  });

  it("runs pipelined statements one after another in the order sent, and throws the first failure", async () => {
    const insert = (em: Parameters<typeof boundStatement>[0], id: number) =>
      boundStatement(em, "insert into events values ($1, now(), (select count(*) from events)::text, true)", [id]);
    await orm.em.fork().transactional(async (em) => {
      const writes = new Pipelined(2);
      for (let id = 100; id < 110; id++) await writes.send(insert(em, id));
      await writes.settled();
    });
    const notes = await boundQuery(
      orm.em.fork(),
      "select note from events where id between 100 and 199 order by id",
      [],
      {
        note: column.text.nullable,
      },
    );
    // Each row counted those before it: the transaction ran them one after another, in order.
    const first = Number(notes[0]!.note);
    expect(notes.map((n) => Number(n.note))).toEqual(Array.from({ length: 10 }, (_, i) => first + i));

    // The duplicate key fails; what was sent after it finds the transaction aborted; the first failure is thrown.
    const failing = orm.em.fork().transactional(async (em) => {
      const writes = new Pipelined();
      for (const id of [200, 100, 201]) await writes.send(insert(em, id));
      await writes.settled(new Error("not this one") as never);
    });
    await expect(failing).rejects.toThrow(/duplicate key/);
    expect(
      await boundQuery(orm.em.fork(), "select id from events where id between 200 and 299", [], { id: column.integer }),
    ).toEqual([]);
  });
});

describe("preparedQuery", () => {
  const schema = uniqueName("t_prepared");
  let orm: MikroORM;

  beforeAll(async () => {
    // One connection, so the statement this test prepares is the session's the next query looks at.
    orm = await openDatabase({
      url: testServers().databaseUrl,
      schema,
      entities: [],
      migrations: [Migration1_CreateEvents],
      poolMax: 1,
    });
    await migrateToHead(orm);
    await rawQuery(
      orm.em.fork(),
      "insert into events select n, now(), 'n' || n, n % 2 = 0 from generate_series(1, 20) n",
    );
  });

  afterAll(async () => {
    await orm.em.getConnection().execute(`drop schema if exists "${schema}" cascade`);
    await orm.close();
  });

  const columns = { id: column.integer, note: column.text.nullable, seen: column.boolean };
  const byId = "select id, note, seen from events where id = $1::bigint";

  it("answers the declared columns as rawQuery does, from a statement prepared on the connection", async () => {
    // Past PostgreSQL's five custom plans, so the generic plan answers too.
    for (let id = 1; id <= 8; id++) {
      expect(await preparedQuery(orm.em.fork(), "test.events-by-id", byId, [id], columns)).toEqual([
        { id, note: `n${id}`, seen: id % 2 === 0 },
      ]);
    }
    const prepared = await rawQuery(orm.em.fork(), "select name, statement from pg_prepared_statements", [], {
      name: column.text,
      statement: column.text,
    });
    expect(prepared).toContainEqual({ name: "test.events-by-id", statement: byId });
    expect(await preparedQuery(orm.em.fork(), "test.events-by-id", byId, [21], columns)).toEqual([]);
  });
});
