// Identity's directory, as policy needs it: whether a team exists and which organization it belongs to (a license
// policy of a team falls back to its organization's default). Asked at read time (docs/adr/0006), as the caller,
// re-signed for this hop.
import { createContextValues, type Client } from "@connectrpc/connect";
import { DirectoryLookupService } from "@sca/proto/sca/identity/v1/directory_lookup_pb.ts";
import { callerTokenKey, createServiceClient, signCallerToken, type Caller } from "@sca/rpc";

export interface TeamPlacement {
  id: string;
  organizationId: string | null;
}

export interface Directory {
  /** The team and its organization, or null when there is no such team. */
  team(caller: Caller, teamId: string): Promise<TeamPlacement | null>;
}

export function identityDirectory(url: string, secretKey: string): Directory {
  const client: Client<typeof DirectoryLookupService> = createServiceClient(DirectoryLookupService, url, {
    timeoutMs: 5_000,
  });
  return {
    async team(caller, teamId) {
      const token = await signCallerToken(caller, secretKey);
      const answer = await client.lookupDirectory(
        { teamIds: [teamId], userIds: [] },
        { contextValues: createContextValues().set(callerTokenKey, token) },
      );
      const team = answer.teams.find((t) => t.id === teamId);
      return team ? { id: team.id, organizationId: team.organizationId ?? null } : null;
    },
  };
}
