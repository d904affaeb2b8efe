// MikroORM bootstrap: one PostgreSQL schema per service, migrations checked in as classes and applied by
// the migrate command (never by schema:update), readiness answered by "is every migration applied?".
import { MikroORM, type Options } from "@mikro-orm/postgresql";
import { Migrator, type Migration } from "@mikro-orm/migrations";
import type { Logger } from "@sca/log";
import { PostgresNamingStrategy } from "./naming-strategy.ts";

type MigrationClass = new (...args: ConstructorParameters<typeof Migration>) => Migration;

export interface DatabaseOptions {
  url: string;
  /** The schema this service owns, e.g. "identity". */
  schema: string;
  entities: NonNullable<Options["entities"]>;
  /** In order; the class name is the migration's stable name. */
  migrations: MigrationClass[];
  logger?: Logger;
  poolMax?: number;
}

export async function openDatabase(opts: DatabaseOptions): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl: opts.url,
    schema: opts.schema,
    entities: opts.entities,
    namingStrategy: PostgresNamingStrategy,
    extensions: [Migrator],
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: opts.poolMax ?? 10 },
    // Raw SQL (rawQuery) names tables unqualified: every connection resolves them in the service's schema.
    driverOptions: { options: `-c search_path="${opts.schema}"` },
    migrations: {
      migrationsList: opts.migrations.map((cls) => ({ name: cls.name, class: cls })),
      tableName: "schema_migrations",
      schema: opts.schema,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
    debug: false,
    logger: (message) => opts.logger?.debug({ orm: true }, message),
  });
}

/** Applies every pending migration of the service's schema; returns the names applied. */
export async function migrateToHead(orm: MikroORM): Promise<string[]> {
  const schema = orm.config.get("schema")!;
  const connection = orm.em.getConnection();
  // Asked first: a service's own role (provision.ts) owns its schema but may not create schemas, and PostgreSQL
  // checks that right before "if not exists".
  const exists = await connection.execute<{ n: number }[]>(
    "select count(*)::int as n from pg_namespace where nspname = ?",
    [schema],
  );
  if (!exists[0]?.n) await connection.execute(`create schema if not exists "${schema}"`);
  const applied = await orm.migrator.up();
  return applied.map((m) => m.name);
}

/** Names of migrations not yet applied; empty means the schema is at head. */
export async function pendingMigrations(orm: MikroORM): Promise<string[]> {
  const schema = orm.config.get("schema")!;
  const exists = await orm.em
    .getConnection()
    .execute<{ n: number }[]>("select count(*)::int as n from information_schema.schemata where schema_name = ?", [
      schema,
    ]);
  if (!exists[0]?.n) return [`(schema "${schema}" does not exist)`];
  return (await orm.migrator.getPending()).map((m) => m.name);
}
