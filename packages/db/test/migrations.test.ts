import { afterAll, describe, expect, it } from "@jest/globals";
import { Migration, migrateToHead, openDatabase, pendingMigrations } from "@sca/db";
import { testServers, uniqueName } from "@sca/testkit";
import type { MikroORM } from "@mikro-orm/postgresql";

class Migration1_CreateWidgets extends Migration {
  override up(): void {
    this.addSql("create table widgets (id int primary key)");
  }
}
class Migration2_AddWidgetName extends Migration {
  override up(): void {
    this.addSql("alter table widgets add column name text");
  }
}

describe("service schema migrations", () => {
  const schema = uniqueName("t_db");
  const opened: MikroORM[] = [];
  const open = async (migrations: (typeof Migration1_CreateWidgets)[]) => {
    const orm = await openDatabase({ url: testServers().databaseUrl, schema, entities: [], migrations });
    opened.push(orm);
    return orm;
  };

  afterAll(async () => {
    await opened[0]?.em.getConnection().execute(`drop schema if exists "${schema}" cascade`);
    for (const orm of opened) await orm.close();
  });

  it("reports a missing schema as not at head", async () => {
    const orm = await open([Migration1_CreateWidgets]);
    expect(await pendingMigrations(orm)).toEqual([`(schema "${schema}" does not exist)`]);
  });

  it("creates the schema, applies migrations in order inside it, and is then at head", async () => {
    const orm = await open([Migration1_CreateWidgets]);
    expect(await migrateToHead(orm)).toEqual(["Migration1_CreateWidgets"]);
    expect(await pendingMigrations(orm)).toEqual([]);
    const tables = await orm.em
      .getConnection()
      .execute<{ table_name: string }[]>(
        "select table_name from information_schema.tables where table_schema = ? order by table_name",
        [schema],
      );
    expect(tables.map((t) => t.table_name)).toEqual(["schema_migrations", "widgets"]);
  });

  it("sees a newly shipped migration as pending until the migrate command runs, and never reapplies old ones", async () => {
    const orm = await open([Migration1_CreateWidgets, Migration2_AddWidgetName]);
    expect(await pendingMigrations(orm)).toEqual(["Migration2_AddWidgetName"]);
    expect(await migrateToHead(orm)).toEqual(["Migration2_AddWidgetName"]);
    expect(await migrateToHead(orm)).toEqual([]);
    expect(await pendingMigrations(orm)).toEqual([]);
  });
});
