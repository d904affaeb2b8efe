// DirectoryService: the admin surface over organizations, teams, memberships and roles. super_admin only;
// any other caller is told NotFound, as the spec wants for /v1/admin/**.
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { NUMBERED_PAGE_SIZE, pageInfo, pageOf } from "@sca/paging";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  AddTeamMemberResponseSchema, ChangeUserRoleResponseSchema, CreateServiceAccountResponseSchema, CreateTeamResponseSchema,
  DeleteTeamResponseSchema, DirectoryService, GetTeamResponseSchema, ListOrganizationsResponseSchema, ListTeamsResponseSchema,
  MoveTeamResponseSchema, RemoveTeamMemberResponseSchema, UpdateTeamResponseSchema, type Team,
} from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { requireSuperAdmin } from "@sca/rpc";
import { moveCreatesCycle } from "../domain/group-hierarchy.ts";
import { isDemotion, isMembershipRole, MEMBERSHIP_ROLES, parseRoleChange } from "../domain/roles.ts";
import { callerActor } from "@sca/audit";
import { emitAudit } from "../events/account-events.ts";
import type { ApiKeyAnswerCache } from "../store/api-key-answer-cache.ts";
import { revokeTeamApiKeys } from "../store/api-keys.ts";
import { listOrganizations, organizationExists, soleOrganizationId } from "../store/organizations.ts";
import * as teams from "../store/teams.ts";
import * as users from "../store/accounts.ts";
import { organizationView, teamView } from "./directory-views.ts";
import { bodyId, boundedText, pathId } from "./fields.ts";
import { refuseRemovingLastSuperAdmin } from "./super-admins.ts";
import { userView } from "./user-views.ts";
import { accountById } from "../store/accounts.ts";

export interface DirectoryServiceDeps {
  orm: MikroORM;
  apiKeyAnswers: ApiKeyAnswerCache;
}

const invalid = (path: string, message: string) => ProblemError.validation([{ path, message }]);
const slugTaken = () => new ProblemError({ status: 409, code: "slug_taken", detail: "Another team of the organization already uses this slug." });

async function loadTeam(em: EntityManager, id: string): Promise<Team> {
  const row = await teams.teamById(em, id);
  if (!row) throw ProblemError.notFound("No such team.");
  const members = await teams.membersOf(em, [id]);
  return teamView(row, members.get(id) ?? []);
}

async function loadUser(em: EntityManager, id: string) {
  const row = await accountById(em, id);
  if (!row) throw ProblemError.notFound("No such user.");
  return userView(em, row, "admin");
}

export function registerDirectoryService(router: ConnectRouter, deps: DirectoryServiceDeps): void {
  const fork = () => deps.orm.em.fork();

  router.service(DirectoryService, {
    async listOrganizations(req, ctx) {
      requireSuperAdmin(ctx);
      const p = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const { rows, total } = await listOrganizations(fork(), p.limit, p.offset);
      return create(ListOrganizationsResponseSchema, { items: rows.map(organizationView), page: pageInfo(p, total) });
    },

    async listTeams(req, ctx) {
      requireSuperAdmin(ctx);
      const p = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const em = fork();
      const { rows, total } = await teams.listTeams(em, req.search.trim(), p.limit, p.offset);
      const members = await teams.membersOf(em, rows.map((r) => r.id));
      return create(ListTeamsResponseSchema, {
        items: rows.map((r) => teamView(r, members.get(r.id) ?? [])), page: pageInfo(p, total),
      });
    },

    async createTeam(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      const violations: FieldViolation[] = [];
      const name = req.name.trim();
      const slug = req.slug.trim();
      if (name.length < 1 || name.length > 255) violations.push({ path: "body.name", message: "must be 1 to 255 characters" });
      if (slug.length < 1 || slug.length > 64) violations.push({ path: "body.slug", message: "must be 1 to 64 characters" });
      if (violations.length) throw ProblemError.validation(violations);
      const requestedOrg = bodyId(req.organizationId, "body.organization_id");
      const parentId = bodyId(req.parentGroupId, "body.parent_group_id");
      const team = await fork().transactional(async (em) => {
        const organizationId = requestedOrg ?? await soleOrganizationId(em);
        if (!organizationId) throw invalid("body.organization_id", "is required when several organizations exist");
        if (!await organizationExists(em, organizationId)) throw invalid("body.organization_id", "no such organization");
        if (parentId) {
          const parent = await teams.teamById(em, parentId);
          if (!parent) throw invalid("body.parent_group_id", "no such team");
          if (parent.organizationId !== organizationId) throw invalid("body.parent_group_id", "must be a team of the same organization");
        }
        const row = await teams.insertTeam(em, { name, slug, description: req.description ?? null, organizationId, parentGroupId: parentId ?? null });
        if (!row) throw slugTaken();
        emitAudit(em, {
          action: "team.created", targetTable: "groups", targetId: row.id, teamId: row.id, organizationId,
          actor: callerActor(caller), outcome: "success", at: new Date(),
        });
        return teamView(row, []);
      });
      return create(CreateTeamResponseSchema, { team });
    },

    async getTeam(req, ctx) {
      requireSuperAdmin(ctx);
      return create(GetTeamResponseSchema, { team: await loadTeam(fork(), pathId(req.teamId)) });
    },

    async updateTeam(req, ctx) {
      requireSuperAdmin(ctx);
      const id = pathId(req.teamId);
      const changes: teams.TeamChanges = {};
      if (req.name !== undefined) changes.name = boundedText(req.name, "body.name", 1, 255);
      if (req.slug !== undefined) changes.slug = boundedText(req.slug, "body.slug", 1, 64);
      if (req.description !== undefined) changes.description = req.description === "" ? null : req.description;
      const team = await fork().transactional(async (em) => {
        if (!await teams.teamById(em, id)) throw ProblemError.notFound("No such team.");
        if (!await teams.updateTeam(em, id, changes)) throw slugTaken();
        return loadTeam(em, id);
      });
      return create(UpdateTeamResponseSchema, { team });
    },

    async deleteTeam(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      const id = pathId(req.teamId);
      const revokedPrefixes = await fork().transactional(async (em) => {
        await teams.lockGroupTree(em);
        const row = await teams.teamById(em, id);
        if (!row) throw ProblemError.notFound("No such team.");
        if (await teams.hasSubteams(em, id)) {
          throw new ProblemError({ status: 409, code: "team_has_subteams", detail: "Move or delete the team's subteams first." });
        }
        const prefixes = await revokeTeamApiKeys(em, [id]);
        await teams.deleteTeam(em, id);
        emitAudit(em, {
          action: "team.deleted", targetTable: "groups", targetId: id, teamId: id, organizationId: row.organizationId,
          details: { revoked_api_keys: String(prefixes.length) },
          actor: callerActor(caller), outcome: "success", at: new Date(),
        });
        return prefixes;
      });
      await deps.apiKeyAnswers.forget(revokedPrefixes);
      return create(DeleteTeamResponseSchema, {});
    },

    async moveTeam(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      const id = pathId(req.teamId);
      const newParentId = bodyId(req.newParentId, "body.new_parent_id") ?? null;
      const team = await fork().transactional(async (em) => {
        await teams.lockGroupTree(em);
        const row = await teams.teamById(em, id);
        if (!row) throw ProblemError.notFound("No such team.");
        if (newParentId !== null) {
          const parent = await teams.teamById(em, newParentId);
          if (!parent) throw invalid("body.new_parent_id", "no such team");
          if (parent.organizationId !== row.organizationId) throw invalid("body.new_parent_id", "must be a team of the same organization");
        }
        const ancestors = newParentId === null ? [] : await teams.ancestorsOf(em, newParentId);
        if (moveCreatesCycle(id, newParentId, ancestors)) {
          throw invalid("body.new_parent_id", "cannot be the team itself or one of its subteams");
        }
        await teams.setParent(em, id, newParentId);
        emitAudit(em, {
          action: "team.moved", targetTable: "groups", targetId: id, teamId: id, organizationId: row.organizationId,
          details: { from_parent_id: row.parentGroupId ?? "", to_parent_id: newParentId ?? "" },
          actor: callerActor(caller), outcome: "success", at: new Date(),
        });
        return loadTeam(em, id);
      });
      return create(MoveTeamResponseSchema, { team });
    },

    async addTeamMember(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      const teamId = pathId(req.teamId);
      const userId = bodyId(req.userId, "body.user_id");
      if (!userId) throw invalid("body.user_id", "is required");
      if (!isMembershipRole(req.role)) throw invalid("body.role", `must be one of ${MEMBERSHIP_ROLES.join(", ")}`);
      const team = await fork().transactional(async (em) => {
        const row = await teams.teamById(em, teamId);
        if (!row) throw ProblemError.notFound("No such team.");
        if (!await accountById(em, userId)) throw invalid("body.user_id", "no such user");
        await teams.upsertMembership(em, teamId, userId, req.role);
        emitAudit(em, {
          action: "team.member_added", targetTable: "memberships", targetId: userId, teamId, organizationId: row.organizationId,
          details: { user_id: userId, role: req.role },
          actor: callerActor(caller), outcome: "success", at: new Date(),
        });
        return loadTeam(em, teamId);
      });
      return create(AddTeamMemberResponseSchema, { team });
    },

    async removeTeamMember(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      const teamId = pathId(req.teamId);
      const userId = pathId(req.userId);
      await fork().transactional(async (em) => {
        const row = await teams.teamById(em, teamId);
        if (!row || !await teams.deleteMembership(em, teamId, userId)) throw ProblemError.notFound("No such membership.");
        emitAudit(em, {
          action: "team.member_removed", targetTable: "memberships", targetId: userId, teamId, organizationId: row.organizationId,
          details: { user_id: userId },
          actor: callerActor(caller), outcome: "success", at: new Date(),
        });
      });
      return create(RemoveTeamMemberResponseSchema, {});
    },

    async changeUserRole(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      const userId = pathId(req.userId);
      // team_id is ignored for super_admin, so only a team role reads it.
      const parsed = parseRoleChange(req.role, req.role === "super_admin" ? undefined : bodyId(req.teamId, "body.team_id"));
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
          action: "user.role_changed", targetTable: "users", targetId: userId,
          teamId: change.kind === "team_role" ? change.teamId : null, organizationId,
          details: { role: change.kind === "super_admin" ? "super_admin" : change.role, was_super_admin: String(target.isSuperuser) },
          actor: callerActor(caller), outcome: "success", at: new Date(),
        });
        return loadUser(em, userId);
      });
      return create(ChangeUserRoleResponseSchema, { user });
    },

    async createServiceAccount(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      const name = boundedText(req.name, "body.name", 1, 255);
      const user = await fork().transactional(async (em) => {
        const row = await users.insertServiceAccount(em, name);
        emitAudit(em, {
          action: "service_account.created", targetTable: "users", targetId: row.id,
          actor: callerActor(caller), outcome: "success", at: new Date(),
        });
        return userView(em, row, "admin");
      });
      return create(CreateServiceAccountResponseSchema, { user });
    },
  });
}
