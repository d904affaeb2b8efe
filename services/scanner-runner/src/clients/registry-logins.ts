// The organization's registry login for a container scan's registry: the scan's team placed in its organization by
// identity (LookupDirectory), then the login of (organization, registry host) unsealed by admin (GetRegistryLogin),
// both asked as the scanner-runner itself. The password lives only in the pull's memory: never logged.
import { createContextValues, type Client } from "@connectrpc/connect";
import { RegistryLoginService } from "@sca/proto/sca/admin/v1/registry_logins_pb.ts";
import { DirectoryLookupService } from "@sca/proto/sca/identity/v1/directory_lookup_pb.ts";
import { callerTokenKey, createServiceClient, serviceCallerToken } from "@sca/rpc";
import type { RegistryLogin } from "../fetch/registry-client.ts";

export interface RegistryLogins {
  /** The login kept for `registryHost` by the team's organization (allowed for pulls), or undefined. */
  of(teamId: string, registryHost: string, signal: AbortSignal): Promise<RegistryLogin | undefined>;
}

export function adminRegistryLogins(urls: { identity: string; admin: string }, secretKey: string): RegistryLogins {
  const directory: Client<typeof DirectoryLookupService> = createServiceClient(DirectoryLookupService, urls.identity, {
    timeoutMs: 10_000,
  });
  const logins: Client<typeof RegistryLoginService> = createServiceClient(RegistryLoginService, urls.admin, {
    timeoutMs: 10_000,
  });
  return {
    async of(teamId, registryHost, signal) {
      const contextValues = createContextValues().set(
        callerTokenKey,
        await serviceCallerToken("scanner-runner", secretKey),
      );
      const { teams } = await directory.lookupDirectory({ teamIds: [teamId] }, { signal, contextValues });
      const organizationId = teams.find((t) => t.id === teamId)?.organizationId;
      if (!organizationId) return undefined;
      const { login } = await logins.getRegistryLogin({ organizationId, registryHost }, { signal, contextValues });
      return login ? { username: login.username, password: login.password } : undefined;
    },
  };
}
