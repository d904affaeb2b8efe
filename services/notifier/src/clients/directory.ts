// Identity's DirectoryLookupService.LookupDirectory, as the notifier needs it: a team's organization (for its
// organization's routing rules) and whether the team exists. Asked as the notifier itself.
import { createContextValues, type Client } from "@connectrpc/connect";
import { DirectoryLookupService } from "@sca/proto/sca/identity/v1/directory_lookup_pb.ts";
import { callerTokenKey, createServiceClient, serviceCallerToken } from "@sca/rpc";

export interface TeamPlace {
  organizationId: string | null;
}

export interface Directory {
  /** The team's place, or null when no such team exists. */
  team(teamId: string): Promise<TeamPlace | null>;
}

export function identityDirectory(url: string, secretKey: string): Directory {
  const client: Client<typeof DirectoryLookupService> = createServiceClient(DirectoryLookupService, url, {
    timeoutMs: 5_000,
  });
  return {
    async team(teamId) {
      const token = await serviceCallerToken("notifier", secretKey);
      const answer = await client.lookupDirectory(
        { teamIds: [teamId] },
        { contextValues: createContextValues().set(callerTokenKey, token) },
      );
      const team = answer.teams.find((t) => t.id === teamId);
      return team ? { organizationId: team.organizationId ?? null } : null;
    },
  };
}
