// The shape an organization's login services share (RegistryCredentialService, TrackerCredentialService): super_admin
// only (anyone else: NotFound, from the guard), the organization named by a path id, the login parsed, its secret
// sealed by the table's writer and never answered, each change audited (without the secret) in its transaction.
import type { HandlerContext } from "@connectrpc/connect";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { UUID } from "@sca/ids";
import { ProblemError } from "@sca/problem";
import { requireSuperAdmin } from "@sca/rpc";
import type { FieldProblem } from "../domain/login-fields.ts";
import { emitAdminAudit } from "../events/admin-audit.ts";
import type { OrganizationLoginTable } from "../store/organization-logins.ts";

export interface LoginKind<Input, Login, Row, Write> {
  /** The audit actions' prefix (`<action>.created`, `.replaced`, `.deleted`). */
  action: string;
  /** The audited table. */
  table: string;
  /** What a 404 calls one ("No such <noun>."). */
  noun: string;
  parse(input: Input): { login: Login } | { problems: FieldProblem[] };
  /** The row to write, its secret sealed. */
  write(organizationId: string, login: Login): Write;
  /** What the audit entry tells of the login, never its secret. */
  details(login: Login): Record<string, string>;
  store: OrganizationLoginTable<Row, Write>;
}

function idOrNotFound(id: string, what: string): string {
  if (!UUID.test(id)) throw ProblemError.notFound(`No such ${what}.`);
  return id.toLowerCase();
}

export function organizationLogins<Input, Login, Row extends { id: string }, Write>(
  orm: MikroORM,
  kind: LoginKind<Input, Login, Row, Write>,
) {
  const audit = (
    em: EntityManager,
    ctx: { admin: ReturnType<typeof requireSuperAdmin>; organizationId: string },
    what: "created" | "replaced" | "deleted",
    targetId: string,
    details?: Record<string, string>,
  ) =>
    emitAdminAudit(em, {
      action: `${kind.action}.${what}`,
      actor: callerActor(ctx.admin),
      targetId,
      targetTable: kind.table,
      organizationId: ctx.organizationId,
      outcome: "success",
      details,
      at: new Date(),
    });

  return {
    async list(ctx: HandlerContext, organizationIdRaw: string): Promise<Row[]> {
      requireSuperAdmin(ctx);
      const organizationId = idOrNotFound(organizationIdRaw, "organization");
      return kind.store.list(orm.em.fork(), organizationId);
    },

    async put(ctx: HandlerContext, organizationIdRaw: string, input: Input): Promise<{ row: Row; created: boolean }> {
      const admin = requireSuperAdmin(ctx);
      const organizationId = idOrNotFound(organizationIdRaw, "organization");
      const parsed = kind.parse(input);
      if ("problems" in parsed)
        throw ProblemError.validation(parsed.problems.map((p) => ({ ...p, path: `body.${p.path}` })));
      const { login } = parsed;
      return orm.em.fork().transactional(async (em) => {
        const put = await kind.store.put(em, kind.write(organizationId, login));
        audit(em, { admin, organizationId }, put.created ? "created" : "replaced", put.row.id, kind.details(login));
        return put;
      });
    },

    async remove(ctx: HandlerContext, organizationIdRaw: string, idRaw: string): Promise<void> {
      const admin = requireSuperAdmin(ctx);
      const organizationId = idOrNotFound(organizationIdRaw, "organization");
      const id = idOrNotFound(idRaw, kind.noun);
      await orm.em.fork().transactional(async (em) => {
        if (!(await kind.store.remove(em, organizationId, id))) throw ProblemError.notFound(`No such ${kind.noun}.`);
        audit(em, { admin, organizationId }, "deleted", id);
      });
    },
  };
}
