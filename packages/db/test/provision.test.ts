// A database role per service (docs/adr/0011), as the Helm migration Job makes them: `migrate` with
// DATABASE_ADMIN_URL provisions the role its DATABASE_URL names, then migrates as that role. The tests' DATABASE_URL
// (`sca`) is the administrator here: scripts/stack/servers.sh gives it CREATEROLE, as a platform's admin role has.
import { afterAll, describe, expect, it } from "@jest/globals";
import pg from "pg";
import { Migration, migrateToHead, openDatabase, pendingMigrations, provisionServiceRole } from "@sca/db";
import { testServers, uniqueName } from "@sca/testkit";
import type { MikroORM } from "@mikro-orm/postgresql";

class Migration1_CreateWidgets extends Migration {
  override up(): void {
    this.addSql("create table widgets (id serial primary key, name text)");
    this.addSql("create function widget_count() returns bigint language sql as 'select count(*) from widgets'");
  }
}
class Migration2_AddWidgetSize extends Migration {
  override up(): void {
    this.addSql("alter table widgets add column size int");
    this.addSql(
      "create or replace function widget_count() returns bigint language sql as 'select count(*) + 0 from widgets'",
    );
  }
}
const MIGRATIONS = [Migration1_CreateWidgets, Migration2_AddWidgetSize];

const PERMISSION_DENIED = "42501";

describe("a database role per service", () => {
  const adminUrl = testServers().databaseUrl;
  const a = { role: uniqueName("t_role_a"), schema: uniqueName("t_role_a") };
  const b = { role: uniqueName("t_role_b"), schema: uniqueName("t_role_b") };
  // One role for two schemas, as a single-role install given an administrator's DSN provisions it.
  const shared = { role: uniqueName("t_role_c"), schemas: [uniqueName("t_role_c1"), uniqueName("t_role_c2")] };
  const urlOf = (role: string) => {
    const url = new URL(adminUrl);
    url.username = role;
    url.password = `${role}-password`;
    return url.toString();
  };
  const opened: MikroORM[] = [];
  const clients: pg.Client[] = [];
  const open = async (url: string, schema: string, migrations: typeof MIGRATIONS) => {
    const orm = await openDatabase({ url, schema, entities: [], migrations, poolMax: 2 });
    opened.push(orm);
    return orm;
  };
  const connect = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    clients.push(client);
    return client;
  };

  afterAll(async () => {
    for (const orm of opened) await orm.close();
    for (const client of clients) await client.end();
    const admin = await connect(adminUrl);
    for (const schema of [a.schema, b.schema, ...shared.schemas]) {
      await admin.query(`drop schema if exists "${schema}" cascade`);
    }
    for (const role of [a.role, b.role, shared.role]) await admin.query(`drop role if exists "${role}"`);
    await admin.end();
  });

  it("takes over the schema a single-role install made, which its role then migrates on", async () => {
    // A single-role install: the administrator's role made the schema, a table with its sequence, and a function.
    const before = await open(adminUrl, a.schema, [Migration1_CreateWidgets]);
    expect(await migrateToHead(before)).toEqual(["Migration1_CreateWidgets"]);

    expect(await provisionServiceRole({ adminUrl, serviceUrl: urlOf(a.role), schema: a.schema })).toEqual({
      role: a.role,
    });
    const admin = await connect(adminUrl);
    const owners = await admin.query<{ kind: string; owner: string }>(
      `select 'schema' as kind, pg_get_userbyid(nspowner)::text as owner from pg_namespace where nspname = $1
       union all select c.relkind::text, pg_get_userbyid(c.relowner)::text from pg_class c
         join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1
       union all select 'function', pg_get_userbyid(p.proowner)::text from pg_proc p
         join pg_namespace n on n.oid = p.pronamespace where n.nspname = $1`,
      [a.schema],
    );
    // The schema, both tables (widgets, schema_migrations), their sequences and indexes, and the function.
    expect(owners.rows.length).toBeGreaterThanOrEqual(7);
    expect(new Set(owners.rows.map((r) => r.owner))).toEqual(new Set([a.role]));

    const own = await open(urlOf(a.role), a.schema, MIGRATIONS);
    expect(await pendingMigrations(own)).toEqual(["Migration2_AddWidgetSize"]);
    expect(await migrateToHead(own)).toEqual(["Migration2_AddWidgetSize"]);
    await own.em.getConnection().execute("insert into widgets (name, size) values ('a', 1)");
    expect(await own.em.getConnection().execute("select widget_count()::int as n")).toEqual([{ n: 1 }]);
  });

  it("makes a new role and schema that the service migrates from nothing", async () => {
    expect(await provisionServiceRole({ adminUrl, serviceUrl: urlOf(b.role), schema: b.schema })).toEqual({
      role: b.role,
    });
    const own = await open(urlOf(b.role), b.schema, MIGRATIONS);
    expect(await migrateToHead(own)).toEqual(["Migration1_CreateWidgets", "Migration2_AddWidgetSize"]);
    await own.em.getConnection().execute("insert into widgets (name, size) values ('b', 2)");
  });

  it("refuses each service's role the other's schema, new schemas and the administrator's rights", async () => {
    const asA = await connect(urlOf(a.role));
    const denied = (sql: string, message: string) =>
      expect(asA.query(sql)).rejects.toMatchObject({
        code: PERMISSION_DENIED,
        message: expect.stringContaining(message),
      });
    await denied(`select * from "${b.schema}".widgets`, `permission denied for schema ${b.schema}`);
    await denied(`insert into "${b.schema}".widgets (name) values ('x')`, `permission denied for schema ${b.schema}`);
    await denied(`create table "${b.schema}".intruder (id int)`, `permission denied for schema ${b.schema}`);
    await denied(`select "${b.schema}".widget_count()`, `permission denied for schema ${b.schema}`);
    await denied(`alter schema "${b.schema}" owner to "${a.role}"`, `must be owner of schema ${b.schema}`);
    await denied(`create schema "${a.schema}_more"`, "permission denied for database");
    await denied(`create role "${a.role}_more"`, "permission denied to create role");
    // Its own schema stays its own: the row B wrote is not visible, A's is.
    expect((await asA.query(`select name from "${a.schema}".widgets`)).rows).toEqual([{ name: "a" }]);
    const asB = await connect(urlOf(b.role));
    await expect(asB.query(`select * from "${a.schema}".widgets`)).rejects.toMatchObject({
      code: PERMISSION_DENIED,
    });
  });

  it("provisions at once, as the migration Job's containers do, also schemas that share a role", async () => {
    const results = await Promise.all([
      ...shared.schemas.map((schema) => provisionServiceRole({ adminUrl, serviceUrl: urlOf(shared.role), schema })),
      provisionServiceRole({ adminUrl, serviceUrl: urlOf(a.role), schema: a.schema }),
      provisionServiceRole({ adminUrl, serviceUrl: urlOf(b.role), schema: b.schema }),
    ]);
    expect(results.map((r) => r.role)).toEqual([shared.role, shared.role, a.role, b.role]);
    for (const schema of shared.schemas) {
      const own = await open(urlOf(shared.role), schema, MIGRATIONS);
      expect(await migrateToHead(own)).toEqual(["Migration1_CreateWidgets", "Migration2_AddWidgetSize"]);
    }
  });

  it("is idempotent, and leaves a single-role configuration (the administrator's own DSN) alone", async () => {
    expect(await provisionServiceRole({ adminUrl, serviceUrl: urlOf(a.role), schema: a.schema })).toEqual({
      role: a.role,
    });
    expect(await provisionServiceRole({ adminUrl, serviceUrl: adminUrl, schema: a.schema })).toEqual({
      role: undefined,
    });
    const own = await open(urlOf(a.role), a.schema, MIGRATIONS);
    expect(await pendingMigrations(own)).toEqual([]);
  });
});
