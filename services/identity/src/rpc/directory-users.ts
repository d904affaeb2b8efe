// The directory's side of users: a user's role (super_admin, or a role on a team; never the last active
// super_admin away) and service accounts. Each change is audited in its transaction.
import { create } from "@bufbuild/protobuf";
import type { EntityManager } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { ProblemError } from "@sca/problem";
import {
  ChangeUserRoleResponseSchema,
  CreateServiceAccountResponseSchema,
} from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { requireSuperAdmin } from "@sca/rpc";
import { isDemotion, parseRoleChange } from "../domain/roles.ts";
import { emitAudit } from "../events/account-events.ts";
import { accountById } from "../store/accounts.ts";
import * as teams from "../store/teams.ts";
import * as users from "../store/accounts.ts";
import type { DirectoryHandlers, DirectoryServiceDeps } from "./directory-deps.ts";
import { bodyId, boundedText, invalid, pathId } from "./fields.ts";
import { refuseRemovingLastSuperAdmin } from "./super-admins.ts";
import { userView } from "./user-views.ts";

async function loadUser(em: EntityManager, id: string) {
  const row = await accountById(em, id);
  if (!row) throw ProblemError.notFound("No such user.");
  return userView(em, row, "admin");
}

export function directoryUserHandlers(
  deps: DirectoryServiceDeps,
): DirectoryHandlers<"changeUserRole" | "createServiceAccount"> {
  const fork = () => deps.orm.em.fork();
  return {
    async changeUserRole(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      const userId = pathId(req.userId);
      // team_id is ignored for super_admin, so only a team role reads it.
      const parsed = parseRoleChange(
        req.role,
        req.role === "super_admin" ? undefined : bodyId(req.teamId, "body.team_id"),
      );
      if (!parsed.ok) throw invalid(parsed.path, parsed.message);
      const { change } = parsed;
      const user = await fork().transactional(async (em) => {
        await users.lockSuperAdmins(em);
        const target = await accountById(em, userId);
        if (!target) throw ProblemError.notFound("No such user.");
        let organizationId: string | null = null;
        if (change.kind === "team_role") {
          const team = await teams.teamById(em, change.teamId);
          if (!team) throw invalid("body.team_id", "no such team");
          organizationId = team.organizationId;
        }
        if (isDemotion(target.isSuperuser, change) && target.isActive) await refuseRemovingLastSuperAdmin(em);
        if (change.kind === "super_admin") {
          await users.setSuperuser(em, userId, true);
        } else {
          if (target.isSuperuser) await users.setSuperuser(em, userId, false);
          await teams.upsertMembership(em, change.teamId, userId, change.role);
        }
        emitAudit(em, {
          action: "user.role_changed",
          targetTable: "users",
          targetId: userId,
          teamId: change.kind === "team_role" ? change.teamId : null,
          organizationId,
          details: {
            role: change.kind === "super_admin" ? "super_admin" : change.role,
            was_super_admin: String(target.isSuperuser),
          },
          actor: callerActor(caller),
          outcome: "success",
          at: new Date(),
        });
        return loadUser(em, userId);
      });
      await deps.accessAnswers.forgetAll();
      return create(ChangeUserRoleResponseSchema, { user });
    },

    async createServiceAccount(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      const name = boundedText(req.name, "body.name", 1, 255);
      const user = await fork().transactional(async (em) => {
        const row = await users.insertServiceAccount(em, name);
        emitAudit(em, {
          action: "service_account.created",
          targetTable: "users",
          targetId: row.id,
          actor: callerActor(caller),
          outcome: "success",
          at: new Date(),
        });
        return userView(em, row, "admin");
      });
      return create(CreateServiceAccountResponseSchema, { user });
    },
  };
}
