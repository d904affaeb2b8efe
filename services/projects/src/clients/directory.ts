// Identity's directory, as projects needs it: a team's name, organization and group path, a user's display name,
// the people a team's projects may be assigned to.
// Asked at read time (docs/adr/0006): identity stays the one owner of those names, and a rename shows at once.
// The call is made as the caller, re-signed for this hop.
import { createContextValues, type Client } from "@connectrpc/connect";
import {
  DirectoryLookupService,
  type Assignee,
  type TeamSummary,
} from "@sca/proto/sca/identity/v1/directory_lookup_pb.ts";
import { callerTokenKey, createServiceClient, signCallerToken, type Caller } from "@sca/rpc";

export interface DirectoryNames {
  teams: Map<string, TeamSummary>;
  /** User id to display name. */
  users: Map<string, string>;
}

export interface Directory {
  names(caller: Caller, teamIds: Iterable<string>, userIds: Iterable<string | null>): Promise<DirectoryNames>;
  /** The people work on the team's projects may be assigned to (developer or above, cascade included). */
  assignees(caller: Caller, teamId: string): Promise<Assignee[]>;
}

export function identityDirectory(url: string, secretKey: string): Directory {
  const client: Client<typeof DirectoryLookupService> = createServiceClient(DirectoryLookupService, url, {
    timeoutMs: 5_000,
  });
  return {
    async names(caller, teamIds, userIds) {
      const teams = [...new Set(teamIds)];
      const users = [...new Set([...userIds].filter((u): u is string => u !== null))];
      if (teams.length === 0 && users.length === 0) return { teams: new Map(), users: new Map() };
      const token = await signCallerToken(caller, secretKey);
      const answer = await client.lookupDirectory(
        { teamIds: teams, userIds: users },
        { contextValues: createContextValues().set(callerTokenKey, token) },
      );
      return {
        teams: new Map(answer.teams.map((t) => [t.id, t])),
        users: new Map(answer.users.map((u) => [u.id, u.displayName])),
      };
    },
    async assignees(caller, teamId) {
      const token = await signCallerToken(caller, secretKey);
      const answer = await client.lookupTeamAssignees(
        { teamId },
        { contextValues: createContextValues().set(callerTokenKey, token) },
      );
      return answer.assignees;
    },
  };
}
