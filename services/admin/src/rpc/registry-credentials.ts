// RegistryCredentialService: an organization's container-registry logins, super_admin only (anyone else: NotFound).
// The password is sealed before it is stored and never answered; each change is audited (without the password).
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { ProblemError } from "@sca/problem";
import {
  DeleteRegistryCredentialResponseSchema,
  ListRegistryCredentialsResponseSchema,
  PutRegistryCredentialResponseSchema,
  RegistryCredentialSchema,
  RegistryCredentialService,
  type RegistryCredential,
} from "@sca/proto/sca/admin/v1/registry_credentials_pb.ts";
import { requireSuperAdmin } from "@sca/rpc";
import { seal } from "@sca/secret-box";
import { parseRegistryLogin } from "../domain/registry-credential.ts";
import { emitAdminAudit } from "../events/admin-audit.ts";
import type { RegistryCredentialRow } from "../store/entities/registry-credential.ts";
import {
  deleteRegistryCredential,
  listRegistryCredentials,
  putRegistryCredential,
} from "../store/registry-credentials.ts";
import { UUID } from "@sca/ids";

export interface RegistryCredentialDeps {
  orm: MikroORM;
  /** secretBoxKey(SECRET_KEY, "registry-password", "sca-admin"). */
  passwordKey: Buffer;
}

function idOrNotFound(id: string, what: string): string {
  if (!UUID.test(id)) throw ProblemError.notFound(`No such ${what}.`);
  return id.toLowerCase();
}

function view(r: RegistryCredentialRow): RegistryCredential {
  return create(RegistryCredentialSchema, {
    id: r.id,
    organizationId: r.organizationId,
    registryHost: r.registryHost,
    username: r.username,
    allowed: r.allowed,
    createdAt: timestampFromDate(r.createdAt),
    updatedAt: timestampFromDate(r.updatedAt),
  });
}

export function registerRegistryCredentialService(router: ConnectRouter, deps: RegistryCredentialDeps): void {
  router.service(RegistryCredentialService, {
    async listRegistryCredentials(req, ctx) {
      requireSuperAdmin(ctx);
      const organizationId = idOrNotFound(req.organizationId, "organization");
      const rows = await listRegistryCredentials(deps.orm.em.fork(), organizationId);
      return create(ListRegistryCredentialsResponseSchema, { items: rows.map(view) });
    },

    async putRegistryCredential(req, ctx) {
      const admin = requireSuperAdmin(ctx);
      const organizationId = idOrNotFound(req.organizationId, "organization");
      const parsed = parseRegistryLogin({
        registryHost: req.registryHost,
        username: req.username,
        password: req.password,
        allowed: req.allowed,
      });
      if ("problems" in parsed)
        throw ProblemError.validation(parsed.problems.map((p) => ({ ...p, path: `body.${p.path}` })));
      const { login } = parsed;
      const { row, created } = await deps.orm.em.fork().transactional(async (em) => {
        const put = await putRegistryCredential(em, {
          organizationId,
          registryHost: login.registryHost,
          username: login.username,
          passwordSealed: seal(login.password, deps.passwordKey),
          allowed: login.allowed,
        });
        emitAdminAudit(em, {
          action: put.created ? "registry_credential.created" : "registry_credential.replaced",
          actor: callerActor(admin),
          targetId: put.row.id,
          organizationId,
          outcome: "success",
          targetTable: "registry_credentials",
          details: { registry_host: login.registryHost, allowed: String(login.allowed) },
          at: new Date(),
        });
        return put;
      });
      return create(PutRegistryCredentialResponseSchema, { credential: view(row), created });
    },

    async deleteRegistryCredential(req, ctx) {
      const admin = requireSuperAdmin(ctx);
      const organizationId = idOrNotFound(req.organizationId, "organization");
      const id = idOrNotFound(req.credentialId, "registry credential");
      await deps.orm.em.fork().transactional(async (em) => {
        if (!(await deleteRegistryCredential(em, organizationId, id)))
          throw ProblemError.notFound("No such registry credential.");
        emitAdminAudit(em, {
          action: "registry_credential.deleted",
          actor: callerActor(admin),
          targetId: id,
          targetTable: "registry_credentials",
          organizationId,
          outcome: "success",
          at: new Date(),
        });
      });
      return create(DeleteRegistryCredentialResponseSchema, {});
    },
  });
}
