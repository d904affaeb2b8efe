// DirectoryLookupService: the names other services show beside their own rows (a project's team name and group
// path, its creator's name), for any authenticated caller: the asking service has decided the caller may see the row
// that names these ids, and the gateway routes none of it. LookupRecipients (the notifier's) is in
// recipient-lookup.ts, LookupTeamAssignees in assignee-lookup.ts.
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { ProblemError } from "@sca/problem";
import { requireCaller } from "@sca/rpc";
import {
  DirectoryLookupService,
  LookupDirectoryResponseSchema,
  TeamSummarySchema,
  UserSummarySchema,
  type LookupDirectoryRequest,
} from "@sca/proto/sca/identity/v1/directory_lookup_pb.ts";
import { accountsByIds } from "../store/accounts.ts";
import { teamsWithPaths } from "../store/teams.ts";
import { lookupTeamAssigneesHandler } from "./assignee-lookup.ts";
import { lookupRecipientsHandler } from "./recipient-lookup.ts";
import { UUID } from "@sca/ids";

const LOOKUP_MAX = 500;

export function registerDirectoryLookupService(
  router: ConnectRouter,
  deps: { orm: MikroORM; groupCascade: boolean },
): void {
  router.service(DirectoryLookupService, {
    lookupRecipients: lookupRecipientsHandler(deps),
    lookupTeamAssignees: lookupTeamAssigneesHandler(deps),
    async lookupDirectory(req: LookupDirectoryRequest, ctx) {
      requireCaller(ctx);
      if (req.teamIds.length > LOOKUP_MAX || req.userIds.length > LOOKUP_MAX) {
        throw ProblemError.validation([{ path: "team_ids", message: `at most ${LOOKUP_MAX} ids of each kind` }]);
      }
      // Ids that are not UUIDs name nothing.
      const teamIds = req.teamIds.filter((id) => UUID.test(id));
      const userIds = req.userIds.filter((id) => UUID.test(id));
      const em = deps.orm.em.fork();
      const [teams, users] = await Promise.all([teamsWithPaths(em, teamIds), accountsByIds(em.fork(), userIds)]);
      return create(LookupDirectoryResponseSchema, {
        teams: teams.map(({ team, path }) =>
          create(TeamSummarySchema, {
            id: team.id,
            name: team.name,
            groupPath: path,
            ...(team.organizationId ? { organizationId: team.organizationId } : {}),
          }),
        ),
        users: [...users.values()].map((u) =>
          create(UserSummarySchema, { id: u.id, displayName: u.fullName || u.email }),
        ),
      });
    },
  });
}
