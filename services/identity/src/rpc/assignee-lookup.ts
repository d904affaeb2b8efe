// DirectoryLookupService.LookupTeamAssignees: the people work on a team's projects may be assigned to (the project
// assignees of docs/approvals.md): active people, not service accounts, holding developer or above on the team or,
// with the group cascade, on a group above it; each once with their strongest role, ordered by display name.
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import {
  AssigneeSchema,
  LookupTeamAssigneesResponseSchema,
  type LookupTeamAssigneesRequest,
  type LookupTeamAssigneesResponse,
} from "@sca/proto/sca/identity/v1/directory_lookup_pb.ts";
import { requireCaller, type Role } from "@sca/rpc";
import { outranks, roleAtLeast } from "../domain/roles.ts";
import { accountsByIds } from "../store/accounts.ts";
import { ancestorsOf, membersOf } from "../store/teams.ts";
import { UUID } from "@sca/ids";

export function lookupTeamAssigneesHandler(deps: { orm: MikroORM; groupCascade: boolean }) {
  return async (req: LookupTeamAssigneesRequest, ctx: HandlerContext): Promise<LookupTeamAssigneesResponse> => {
    requireCaller(ctx);
    if (!UUID.test(req.teamId)) return create(LookupTeamAssigneesResponseSchema, {});
    const teamId = req.teamId.toLowerCase();
    const em = deps.orm.em.fork();
    const teams = [teamId, ...(deps.groupCascade ? await ancestorsOf(em, teamId) : [])];
    const members = await membersOf(em, teams);
    const strongest = new Map<string, { role: Role; via: string }>();
    for (const team of teams)
      for (const m of members.get(team) ?? []) {
        const role = m.role as Role;
        if (!roleAtLeast(role, "developer")) continue;
        const seen = strongest.get(m.userId);
        if (!seen || outranks(role, seen.role)) strongest.set(m.userId, { role, via: team });
      }
    const accounts = await accountsByIds(em, [...strongest.keys()]);
    const assignees = [...accounts.values()]
      .filter((a) => a.isActive && !a.isServiceAccount)
      .map((a) => ({ account: a, name: a.fullName || a.email, held: strongest.get(a.id)! }))
      .sort((x, y) => x.name.localeCompare(y.name) || x.account.id.localeCompare(y.account.id))
      .map(({ account, name, held }) =>
        create(AssigneeSchema, { userId: account.id, displayName: name, role: held.role, viaTeamId: held.via }),
      );
    return create(LookupTeamAssigneesResponseSchema, { assignees });
  };
}
