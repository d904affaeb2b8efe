// Memberships of a team: add (or change the role held there) and remove, each audited in its transaction.
import { create } from "@bufbuild/protobuf";
import { callerActor } from "@sca/audit";
import { ProblemError } from "@sca/problem";
import {
  AddTeamMemberResponseSchema,
  RemoveTeamMemberResponseSchema,
} from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { requireSuperAdmin } from "@sca/rpc";
import { isMembershipRole, MEMBERSHIP_ROLES } from "../domain/roles.ts";
import { emitAudit } from "../events/account-events.ts";
import { accountById } from "../store/accounts.ts";
import * as teams from "../store/teams.ts";
import type { DirectoryHandlers, DirectoryServiceDeps } from "./directory-deps.ts";
import { loadTeam } from "./directory-teams.ts";
import { bodyId, invalid, pathId } from "./fields.ts";

export function teamMemberHandlers(
  deps: DirectoryServiceDeps,
): DirectoryHandlers<"addTeamMember" | "removeTeamMember"> {
  const fork = () => deps.orm.em.fork();
  return {
    async addTeamMember(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      const teamId = pathId(req.teamId);
      const userId = bodyId(req.userId, "body.user_id");
      if (!userId) throw invalid("body.user_id", "is required");
      if (!isMembershipRole(req.role)) throw invalid("body.role", `must be one of ${MEMBERSHIP_ROLES.join(", ")}`);
      const team = await fork().transactional(async (em) => {
        const row = await teams.teamById(em, teamId);
        if (!row) throw ProblemError.notFound("No such team.");
        if (!(await accountById(em, userId))) throw invalid("body.user_id", "no such user");
        await teams.upsertMembership(em, teamId, userId, req.role);
        emitAudit(em, {
          action: "team.member_added",
          targetTable: "memberships",
          targetId: userId,
          teamId,
          organizationId: row.organizationId,
          details: { user_id: userId, role: req.role },
          actor: callerActor(caller),
          outcome: "success",
          at: new Date(),
        });
        return loadTeam(em, teamId);
      });
      await deps.accessAnswers.forgetAll();
      return create(AddTeamMemberResponseSchema, { team });
    },

    async removeTeamMember(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      const teamId = pathId(req.teamId);
      const userId = pathId(req.userId);
      await fork().transactional(async (em) => {
        const row = await teams.teamById(em, teamId);
        if (!row || !(await teams.deleteMembership(em, teamId, userId)))
          throw ProblemError.notFound("No such membership.");
        emitAudit(em, {
          action: "team.member_removed",
          targetTable: "memberships",
          targetId: userId,
          teamId,
          organizationId: row.organizationId,
          details: { user_id: userId },
          actor: callerActor(caller),
          outcome: "success",
          at: new Date(),
        });
      });
      await deps.accessAnswers.forgetAll();
      return create(RemoveTeamMemberResponseSchema, {});
    },
  };
}
