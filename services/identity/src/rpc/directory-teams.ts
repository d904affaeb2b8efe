// The directory's teams (groups): list, create, read, rename, delete (revoking the team's API keys) and move
// within the hierarchy. Every change is audited in its transaction.
import { create } from "@bufbuild/protobuf";
import type { EntityManager } from "@mikro-orm/postgresql";
import { callerActor } from "@sca/audit";
import { NUMBERED_PAGE_SIZE, pageInfo, pageOf } from "@sca/paging";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  CreateTeamResponseSchema,
  DeleteTeamResponseSchema,
  GetTeamResponseSchema,
  ListTeamsResponseSchema,
  MoveTeamResponseSchema,
  UpdateTeamResponseSchema,
  type Team,
} from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { requireSuperAdmin } from "@sca/rpc";
import { moveCreatesCycle } from "../domain/group-hierarchy.ts";
import { emitAudit } from "../events/account-events.ts";
import { revokeTeamApiKeys } from "../store/api-keys.ts";
import { organizationExists, soleOrganizationId } from "../store/organizations.ts";
import * as teams from "../store/teams.ts";
import type { DirectoryHandlers, DirectoryServiceDeps } from "./directory-deps.ts";
import { teamView } from "./directory-views.ts";
import { projectCounts } from "../store/known-projects.ts";
import { bodyId, boundedText, invalid, pathId } from "./fields.ts";

const slugTaken = () =>
  new ProblemError({
    status: 409,
    code: "slug_taken",
    detail: "Another team of the organization already uses this slug.",
  });

/** The team with its direct members, or NotFound. */
export async function loadTeam(em: EntityManager, id: string): Promise<Team> {
  const row = await teams.teamById(em, id);
  if (!row) throw ProblemError.notFound("No such team.");
  const members = await teams.membersOf(em, [id]);
  const counts = await projectCounts(em, [id]);
  return teamView(row, members.get(id) ?? [], counts.get(id));
}

export function teamHandlers(
  deps: DirectoryServiceDeps,
): DirectoryHandlers<"listTeams" | "createTeam" | "getTeam" | "updateTeam" | "deleteTeam" | "moveTeam"> {
  const fork = () => deps.orm.em.fork();
  return {
    async listTeams(req, ctx) {
      requireSuperAdmin(ctx);
      const p = pageOf(req.page, NUMBERED_PAGE_SIZE);
      const em = fork();
      const { rows, total } = await teams.listTeams(em, req.search.trim(), p.limit, p.offset);
      const members = await teams.membersOf(
        em,
        rows.map((r) => r.id),
      );
      const counts = await projectCounts(
        em,
        rows.map((r) => r.id),
      );
      return create(ListTeamsResponseSchema, {
        items: rows.map((r) => teamView(r, members.get(r.id) ?? [], counts.get(r.id))),
        page: pageInfo(p, total),
      });
    },

    async createTeam(req, ctx) {
      const caller = requireSuperAdmin(ctx);
      const violations: FieldViolation[] = [];
      const name = req.name.trim();
      const slug = req.slug.trim();
      if (name.length < 1 || name.length > 255)
        violations.push({ path: "body.name", message: "must be 1 to 255 characters" });
      if (slug.length < 1 || slug.length > 64)
        violations.push({ path: "body.slug", message: "must be 1 to 64 characters" });
      if (violations.length) throw ProblemError.validation(violations);
      const requestedOrg = bodyId(req.organizationId, "body.organization_id");
      const parentId = bodyId(req.parentGroupId, "body.parent_group_id");
      const team = await fork().transactional(async (em) => {
        const organizationId = requestedOrg ?? (await soleOrganizationId(em));
        if (!organizationId) throw invalid("body.organization_id", "is required when several organizations exist");
        if (!(await organizationExists(em, organizationId)))
          throw invalid("body.organization_id", "no such organization");
        if (parentId) {
          const parent = await teams.teamById(em, parentId);
          if (!parent) throw invalid("body.parent_group_id", "no such team");
          if (parent.organizationId !== organizationId)
            throw invalid("body.parent_group_id", "must be a team of the same organization");
        }
        const row = await teams.insertTeam(em, {
          name,
          slug,
          description: req.description ?? null,
          organizationId,
          parentGroupId: parentId ?? null,
        });
        if (!row) throw slugTaken();
        emitAudit(em, {
          action: "team.created",
          targetTable: "groups",
          targetId: row.id,
          teamId: row.id,
          organizationId,
          actor: callerActor(caller),
          outcome: "success",
          at: new Date(),
        });
        return teamView(row, []);
      });
      // With the group cascade a new subteam reaches the members of the teams above it.
      if (parentId) await deps.accessAnswers.forgetAll();
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
        if (!(await teams.teamById(em, id))) throw ProblemError.notFound("No such team.");
        if (!(await teams.updateTeam(em, id, changes))) throw slugTaken();
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
          throw new ProblemError({
            status: 409,
            code: "team_has_subteams",
            detail: "Move or delete the team's subteams first.",
          });
        }
        const prefixes = await revokeTeamApiKeys(em, [id]);
        await teams.deleteTeam(em, id);
        emitAudit(em, {
          action: "team.deleted",
          targetTable: "groups",
          targetId: id,
          teamId: id,
          organizationId: row.organizationId,
          details: { revoked_api_keys: String(prefixes.length) },
          actor: callerActor(caller),
          outcome: "success",
          at: new Date(),
        });
        return prefixes;
      });
      await deps.apiKeyAnswers.forget(revokedPrefixes);
      await deps.accessAnswers.forgetAll();
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
          if (parent.organizationId !== row.organizationId)
            throw invalid("body.new_parent_id", "must be a team of the same organization");
        }
        const ancestors = newParentId === null ? [] : await teams.ancestorsOf(em, newParentId);
        if (moveCreatesCycle(id, newParentId, ancestors)) {
          throw invalid("body.new_parent_id", "cannot be the team itself or one of its subteams");
        }
        await teams.setParent(em, id, newParentId);
        emitAudit(em, {
          action: "team.moved",
          targetTable: "groups",
          targetId: id,
          teamId: id,
          organizationId: row.organizationId,
          details: { from_parent_id: row.parentGroupId ?? "", to_parent_id: newParentId ?? "" },
          actor: callerActor(caller),
          outcome: "success",
          at: new Date(),
        });
        return loadTeam(em, id);
      });
      await deps.accessAnswers.forgetAll();
      return create(MoveTeamResponseSchema, { team });
    },
  };
}
