// RegistryCredentialService: an organization's container-registry logins, in the shape of organization-logins.ts.
// The password is sealed before it is stored and never answered.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import {
  DeleteRegistryCredentialResponseSchema,
  ListRegistryCredentialsResponseSchema,
  PutRegistryCredentialResponseSchema,
  RegistryCredentialSchema,
  RegistryCredentialService,
  type RegistryCredential,
} from "@sca/proto/sca/admin/v1/registry_credentials_pb.ts";
import { seal } from "@sca/secret-box";
import { parseRegistryLogin } from "../domain/registry-credential.ts";
import type { RegistryCredentialRow } from "../store/entities/registry-credential.ts";
import { registryCredentials } from "../store/registry-credentials.ts";
import { organizationLogins } from "./organization-logins.ts";

export interface RegistryCredentialDeps {
  orm: MikroORM;
  /** secretBoxKey(SECRET_KEY, "registry-password", "sca-admin"). */
  passwordKey: Buffer;
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
  const logins = organizationLogins(deps.orm, {
    action: "registry_credential",
    table: "registry_credentials",
    noun: "registry credential",
    parse: parseRegistryLogin,
    write: (organizationId, login) => ({
      organizationId,
      registryHost: login.registryHost,
      username: login.username,
      passwordSealed: seal(login.password, deps.passwordKey),
      allowed: login.allowed,
    }),
    details: (login) => ({ registry_host: login.registryHost, allowed: String(login.allowed) }),
    store: registryCredentials,
  });
  router.service(RegistryCredentialService, {
    async listRegistryCredentials(req, ctx) {
      const rows = await logins.list(ctx, req.organizationId);
      return create(ListRegistryCredentialsResponseSchema, { items: rows.map(view) });
    },

    async putRegistryCredential(req, ctx) {
      const { row, created } = await logins.put(ctx, req.organizationId, {
        registryHost: req.registryHost,
        username: req.username,
        password: req.password,
        allowed: req.allowed,
      });
      return create(PutRegistryCredentialResponseSchema, { credential: view(row), created });
    },

    async deleteRegistryCredential(req, ctx) {
      await logins.remove(ctx, req.organizationId, req.credentialId);
      return create(DeleteRegistryCredentialResponseSchema, {});
    },
  });
}
