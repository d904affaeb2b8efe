// TrackerCredentialService: an organization's ticket-tracker logins, super_admin only (anyone else: NotFound). The
// api_token is sealed before it is stored and never answered; each change is audited (without the token).
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { ProblemError } from "@sca/problem";
import {
  DeleteTrackerCredentialResponseSchema,
  ListTrackerCredentialsResponseSchema,
  PutTrackerCredentialResponseSchema,
  TrackerCredentialSchema,
  TrackerCredentialService,
  type TrackerCredential,
} from "@sca/proto/sca/admin/v1/tracker_credentials_pb.ts";
import { requireSuperAdmin } from "@sca/rpc";
import { seal } from "@sca/secret-box";
import { parseTrackerLogin } from "../domain/tracker-credential.ts";
import { emitAdminAudit } from "../events/admin-audit.ts";
import type { TrackerCredentialRow } from "../store/entities/tracker-credential.ts";
import { deleteTrackerCredential, listTrackerCredentials, putTrackerCredential } from "../store/tracker-credentials.ts";
import { UUID } from "@sca/ids";

export interface TrackerCredentialDeps {
  orm: MikroORM;
  /** secretBoxKey(SECRET_KEY, "tracker-token", "sca-admin"). */
  tokenKey: Buffer;
}

function idOrNotFound(id: string, what: string): string {
  if (!UUID.test(id)) throw ProblemError.notFound(`No such ${what}.`);
  return id.toLowerCase();
}

function view(r: TrackerCredentialRow): TrackerCredential {
  return create(TrackerCredentialSchema, {
    id: r.id,
    organizationId: r.organizationId,
    host: r.host,
    authScheme: r.authScheme,
    username: r.username,
    createdAt: timestampFromDate(r.createdAt),
    updatedAt: timestampFromDate(r.updatedAt),
  });
}

export function registerTrackerCredentialService(router: ConnectRouter, deps: TrackerCredentialDeps): void {
  router.service(TrackerCredentialService, {
    async listTrackerCredentials(req, ctx) {
      requireSuperAdmin(ctx);
      const organizationId = idOrNotFound(req.organizationId, "organization");
      const rows = await listTrackerCredentials(deps.orm.em.fork(), organizationId);
      return create(ListTrackerCredentialsResponseSchema, { items: rows.map(view) });
    },

    async putTrackerCredential(req, ctx) {
      const admin = requireSuperAdmin(ctx);
      const organizationId = idOrNotFound(req.organizationId, "organization");
      const parsed = parseTrackerLogin({
        host: req.host,
        apiToken: req.apiToken,
        authScheme: req.authScheme,
        username: req.username,
      });
      if ("problems" in parsed)
        throw ProblemError.validation(parsed.problems.map((p) => ({ ...p, path: `body.${p.path}` })));
      const { login } = parsed;
      const { row, created } = await deps.orm.em.fork().transactional(async (em) => {
        const put = await putTrackerCredential(em, {
          organizationId,
          host: login.host,
          authScheme: login.authScheme,
          username: login.username,
          apiTokenSealed: seal(login.apiToken, deps.tokenKey),
        });
        emitAdminAudit(em, {
          action: put.created ? "tracker_credential.created" : "tracker_credential.replaced",
          actor: callerActor(admin),
          targetId: put.row.id,
          organizationId,
          outcome: "success",
          details: { host: login.host, auth_scheme: login.authScheme },
          at: new Date(),
        });
        return put;
      });
      return create(PutTrackerCredentialResponseSchema, { credential: view(row), created });
    },

    async deleteTrackerCredential(req, ctx) {
      const admin = requireSuperAdmin(ctx);
      const organizationId = idOrNotFound(req.organizationId, "organization");
      const id = idOrNotFound(req.credentialId, "tracker credential");
      await deps.orm.em.fork().transactional(async (em) => {
        if (!(await deleteTrackerCredential(em, organizationId, id)))
          throw ProblemError.notFound("No such tracker credential.");
        emitAdminAudit(em, {
          action: "tracker_credential.deleted",
          actor: callerActor(admin),
          targetId: id,
          organizationId,
          outcome: "success",
          at: new Date(),
        });
      });
      return create(DeleteTrackerCredentialResponseSchema, {});
    },
  });
}
