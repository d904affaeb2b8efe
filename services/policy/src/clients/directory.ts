// Identity's directory, as policy needs it: whether a team exists and which organization it belongs to (a license
// policy of a team falls back to its organization's default), and the display names of requesters. Asked at read
// time (docs/adr/0006), as the caller, re-signed for this hop.
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
  /** Display names (full name, else e-mail) of these users; ids that name nobody are left out. At most 500. */
  userNames(caller: Caller, userIds: string[]): Promise<Map<string, string>>;
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
    async userNames(caller, userIds) {
      if (userIds.length === 0) return new Map();
      const token = await signCallerToken(caller, secretKey);
      const answer = await client.lookupDirectory(
        { teamIds: [], userIds: [...new Set(userIds)] },
        { contextValues: createContextValues().set(callerTokenKey, token) },
      );
      return new Map(answer.users.map((u) => [u.id, u.displayName]));
    },
  };
}
