// A database role per service (docs/adr/0011): with an administrator's DSN, the role named by the service's own DSN
// is made (or its password set) and made owner of the service's schema and of everything already in it, so the
// service migrates and runs as a role that has no rights on any other service's schema. PostgreSQL quotes the
// names and the password itself (format's %I and %L): DDL takes no bind parameters.
import pg from "pg";

export interface ServiceRoleOptions {
  /** A role allowed to create roles (CREATEROLE) and schemas in the database (CREATE on it, or its owner). */
  adminUrl: string;
  /** The service's own DSN: its user is the role, its password the role's. */
  serviceUrl: string;
  schema: string;
}

/** What provisioning did; `role` undefined: the service's DSN is the administrator's own (a single role). */
export interface ProvisionedRole {
  role: string | undefined;
}

/** The object kinds in a schema that have an owner of their own (indexes and owned sequences follow their table). */
const OWNED_OBJECTS = `
  select format('alter %s %I.%I owner to %I',
                case c.relkind when 'S' then 'sequence' when 'v' then 'view' when 'm' then 'materialized view'
                               when 'f' then 'foreign table' else 'table' end,
                n.nspname, c.relname, $2::text) as statement
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = $1 and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S') and c.relowner <> $2::regrole
     and not (c.relkind = 'S' and exists (select 1 from pg_depend d
                                            where d.classid = 'pg_class'::regclass and d.objid = c.oid
                                              and d.refclassid = 'pg_class'::regclass and d.deptype in ('a', 'i')))
   union all
  select format('alter %s %I.%I(%s) owner to %I', case p.prokind when 'p' then 'procedure' else 'function' end,
                n.nspname, p.proname, pg_get_function_identity_arguments(p.oid), $2::text)
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
   where n.nspname = $1 and p.proowner <> $2::regrole`;

/**
 * Makes the service's role and schema, idempotently: run before every migration (the Helm migration Job runs it),
 * it also takes over a schema a single-role install made, and sets the role's password to the DSN's.
 */
export async function provisionServiceRole(opts: ServiceRoleOptions): Promise<ProvisionedRole> {
  const service = new URL(opts.serviceUrl);
  const role = decodeURIComponent(service.username);
  const admin = new pg.Client({ connectionString: opts.adminUrl });
  await admin.connect();
  try {
    const adminRole = (await admin.query<{ r: string }>("select current_user as r")).rows[0]!.r;
    if (!role || role === adminRole) return { role: undefined };
    const password = decodeURIComponent(service.password);
    const ddl = async (template: string, ...args: string[]) => {
      const { rows } = await admin.query<{ s: string }>(`select format(${template}) as s`, args);
      await admin.query(rows[0]!.s);
    };
    // One provisioning at a time in the database: the migration Job's containers run at once, and several may share
    // a role (a single-role install given an admin DSN), where concurrent ALTER ROLEs fail. DDL on roles is
    // transactional, so the lock holds until commit.
    await admin.query("begin");
    await admin.query("select pg_advisory_xact_lock(hashtext('sca-portal: provision service roles'))");
    if ((await admin.query("select 1 from pg_roles where rolname = $1", [role])).rowCount === 0) {
      await ddl("'create role %I login', $1::text", role);
    }
    await ddl(
      password ? "'alter role %I login password %L', $1::text, $2::text" : "'alter role %I login', $1::text",
      role,
      ...(password ? [password] : []),
    );
    // The administrator must be a member of the role to make it an owner (PostgreSQL's rule for owner changes).
    if (!(await admin.query<{ m: boolean }>("select pg_has_role($1, 'MEMBER') as m", [role])).rows[0]!.m) {
      await ddl("'grant %I to %I', $1::text, $2::text", role, adminRole);
    }
    const schemaExists =
      (await admin.query("select 1 from pg_namespace where nspname = $1", [opts.schema])).rowCount === 1;
    await ddl(
      schemaExists
        ? "'alter schema %I owner to %I', $1::text, $2::text"
        : "'create schema %I authorization %I', $1::text, $2::text",
      opts.schema,
      role,
    );
    for (const { statement } of (await admin.query<{ statement: string }>(OWNED_OBJECTS, [opts.schema, role])).rows) {
      await admin.query(statement);
    }
    await admin.query("commit");
    return { role };
  } catch (err) {
    await admin.query("rollback").catch(() => undefined);
    throw err;
  } finally {
    await admin.end();
  }
}
