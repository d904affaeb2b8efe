// Clients of the identity service's Connect services. A call made for a request carries its caller:
// `ctx.identity.directory.getTeam(req, callOptions(request))` (src/http/authenticate.ts).
import type { Client } from "@connectrpc/connect";
import { AccessService } from "@sca/proto/sca/identity/v1/access_pb.ts";
import { AccountService, AdminUserService } from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { ApiKeyService } from "@sca/proto/sca/identity/v1/api_keys_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { SsoService } from "@sca/proto/sca/identity/v1/sso_pb.ts";
import { createServiceClient } from "@sca/rpc";
import { rpcUrlFor } from "@sca/runtime/services";

export interface IdentityClients {
  access: Client<typeof AccessService>;
  accounts: Client<typeof AccountService>;
  adminUsers: Client<typeof AdminUserService>;
  directory: Client<typeof DirectoryService>;
  apiKeys: Client<typeof ApiKeyService>;
  sso: Client<typeof SsoService>;
}

/** Clients at `baseUrl`: IDENTITY_RPC_URL, or the single-machine default. */
export function identityClients(baseUrl = rpcUrlFor("identity")): IdentityClients {
  return {
    access: createServiceClient(AccessService, baseUrl),
    accounts: createServiceClient(AccountService, baseUrl),
    adminUsers: createServiceClient(AdminUserService, baseUrl),
    directory: createServiceClient(DirectoryService, baseUrl),
    apiKeys: createServiceClient(ApiKeyService, baseUrl),
    sso: createServiceClient(SsoService, baseUrl),
  };
}
