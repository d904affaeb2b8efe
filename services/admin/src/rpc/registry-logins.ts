// RegistryLoginService: the organization's registry login for a host, unsealed, for the scanner-runner pulling a
// container scan's image (docs/container-scans.md). The one answer carrying a registry password, so it is for the
// scanner-runner's service caller only, and neither the request's answer nor the password is logged.
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { ProblemError } from "@sca/problem";
import { GetRegistryLoginResponseSchema, RegistryLoginService } from "@sca/proto/sca/admin/v1/registry_logins_pb.ts";
import { requireService } from "@sca/rpc";
import { open } from "@sca/secret-box";
import { registryHostOf } from "../domain/registry-credential.ts";
import { allowedRegistryLogin } from "../store/registry-credentials.ts";

/** The service caller that may read logins. */
export const REGISTRY_LOGIN_CALLER = "scanner-runner";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface RegistryLoginDeps {
  orm: MikroORM;
  /** secretBoxKey(SECRET_KEY, "registry-password", "sca-admin"): the key the credentials were sealed with. */
  passwordKey: Buffer;
}

export function registerRegistryLoginService(router: ConnectRouter, deps: RegistryLoginDeps): void {
  router.service(RegistryLoginService, {
    async getRegistryLogin(req, ctx) {
      requireService(ctx, REGISTRY_LOGIN_CALLER);
      if (!UUID.test(req.organizationId))
        throw ProblemError.validation([{ path: "organization_id", message: "must be a UUID" }]);
      const host = registryHostOf(req.registryHost);
      if (!host) throw ProblemError.validation([{ path: "registry_host", message: "must be host[:port]" }]);
      const found = await allowedRegistryLogin(deps.orm.em.fork(), req.organizationId.toLowerCase(), host);
      if (!found) return create(GetRegistryLoginResponseSchema, {});
      return create(GetRegistryLoginResponseSchema, {
        login: { username: found.username, password: open(found.passwordSealed, deps.passwordKey) },
      });
    },
  });
}
