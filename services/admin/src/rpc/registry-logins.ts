// RegistryLoginService: the organization's registry login for a host, unsealed, for the scanner-runner pulling a
// container scan's image (docs/container-scans.md). The one answer carrying a registry password, so it is for the
// scanner-runner's service caller only, and neither the request's answer nor the password is logged. Each unsealing
// is audited (`registry_credential.used`, without the password), so a super_admin sees when a login was read.
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { ProblemError } from "@sca/problem";
import { GetRegistryLoginResponseSchema, RegistryLoginService } from "@sca/proto/sca/admin/v1/registry_logins_pb.ts";
import { requireService } from "@sca/rpc";
import { open } from "@sca/secret-box";
import { registryHostOf } from "../domain/registry-credential.ts";
import { emitAdminAudit } from "../events/admin-audit.ts";
import { allowedRegistryLogin } from "../store/registry-credentials.ts";
import { UUID } from "@sca/ids";

/** The service caller that may read logins. */
export const REGISTRY_LOGIN_CALLER = "scanner-runner";

export interface RegistryLoginDeps {
  orm: MikroORM;
  /** secretBoxKey(SECRET_KEY, "registry-password", "sca-admin"): the key the credentials were sealed with. */
  passwordKey: Buffer;
}

export function registerRegistryLoginService(router: ConnectRouter, deps: RegistryLoginDeps): void {
  router.service(RegistryLoginService, {
    async getRegistryLogin(req, ctx) {
      const caller = requireService(ctx, REGISTRY_LOGIN_CALLER);
      if (!UUID.test(req.organizationId))
        throw ProblemError.validation([{ path: "organization_id", message: "must be a UUID" }]);
      const host = registryHostOf(req.registryHost);
      if (!host) throw ProblemError.validation([{ path: "registry_host", message: "must be host[:port]" }]);
      const organizationId = req.organizationId.toLowerCase();
      const found = await allowedRegistryLogin(deps.orm.em.fork(), organizationId, host);
      if (!found) return create(GetRegistryLoginResponseSchema, {});
      const em = deps.orm.em.fork();
      emitAdminAudit(em, {
        action: "registry_credential.used",
        actor: callerActor(caller),
        targetId: found.id,
        targetTable: "registry_credentials",
        organizationId,
        outcome: "success",
        details: { registry_host: host, service: caller.service },
        at: new Date(),
      });
      // The entry commits before the password leaves: no unsealing goes unrecorded.
      await em.flush();
      return create(GetRegistryLoginResponseSchema, {
        login: { username: found.username, password: open(found.passwordSealed, deps.passwordKey) },
      });
    },
  });
}
