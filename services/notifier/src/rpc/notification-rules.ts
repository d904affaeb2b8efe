// NotificationRuleService: an organization's and a team's routing rules. Who may read and change them is
// domain/routing-rules.ts; a caller who may not read a team's or an organization's rules is told they do not exist.
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { ProblemError } from "@sca/problem";
import {
  CreateOrganizationRuleResponseSchema,
  CreateTeamRuleResponseSchema,
  DeleteRuleResponseSchema,
  ListOrganizationRulesResponseSchema,
  ListTeamRulesResponseSchema,
  NotificationRuleService,
  type NotificationRuleFields,
} from "@sca/proto/sca/notifier/v1/notification_rules_pb.ts";
import { requirePerson, type Person } from "@sca/rpc";
import type { Directory } from "../clients/directory.ts";
import {
  mayManageOrganizationRules,
  mayManageTeamRules,
  mayReadOrganizationRules,
  mayReadTeamRules,
  parseRule,
  type RuleFields,
} from "../domain/routing-rules.ts";
import { deleteRule, findRule, insertRule, organizationRules, teamRules } from "../store/notification-rules.ts";
import { notificationRuleView } from "./notification-rule-views.ts";
import { UUID } from "@sca/ids";

export interface NotificationRuleDeps {
  orm: MikroORM;
  directory: Directory;
}

function ruleOwner(ctx: HandlerContext): Person {
  return requirePerson(ctx, () => ProblemError.forbidden("Routing rules are managed by people, not by API keys."));
}

function uuidOrNotFound(id: string, what: string): string {
  if (!UUID.test(id)) throw ProblemError.notFound(`No such ${what}.`);
  return id.toLowerCase();
}

function fieldsOf(body: NotificationRuleFields | undefined): RuleFields {
  const parsed = parseRule({
    name: body?.name ?? "",
    kinds: body?.kinds ?? [],
    minSeverity: body?.minSeverity,
    channels: body?.channels ?? [],
    emailRecipients: body?.emailRecipients ?? [],
    isActive: body?.isActive,
    projectId: body?.projectId,
  });
  if ("problems" in parsed)
    throw ProblemError.validation(parsed.problems.map((p) => ({ ...p, path: `body.${p.path}` })));
  return parsed.rule;
}

export function registerNotificationRuleService(router: ConnectRouter, deps: NotificationRuleDeps): void {
  /** The team, when the caller may read its rules: else not found (as for a team that does not exist). */
  const visibleTeam = async (person: Person, rawId: string) => {
    const teamId = uuidOrNotFound(rawId, "team");
    const place = mayReadTeamRules(person, teamId) ? await deps.directory.team(teamId) : null;
    if (!place) throw ProblemError.notFound("No such team.");
    return { teamId, organizationId: place.organizationId };
  };

  router.service(NotificationRuleService, {
    async listOrganizationRules(req, ctx) {
      const person = ruleOwner(ctx);
      const organizationId = uuidOrNotFound(req.organizationId, "organization");
      if (!mayReadOrganizationRules(person, organizationId)) throw ProblemError.notFound("No such organization.");
      const rows = await organizationRules(deps.orm.em.fork(), organizationId);
      return create(ListOrganizationRulesResponseSchema, { items: rows.map(notificationRuleView) });
    },

    async createOrganizationRule(req, ctx) {
      const person = ruleOwner(ctx);
      const organizationId = uuidOrNotFound(req.organizationId, "organization");
      if (!mayManageOrganizationRules(person)) {
        if (mayReadOrganizationRules(person, organizationId))
          throw ProblemError.forbidden("Only a super_admin adds an organization's rules.");
        throw ProblemError.notFound("No such organization.");
      }
      const fields = fieldsOf(req.rule);
      const row = await insertRule(deps.orm.em.fork(), { organizationId, teamId: null }, fields);
      return create(CreateOrganizationRuleResponseSchema, { rule: notificationRuleView(row) });
    },

    async listTeamRules(req, ctx) {
      const person = ruleOwner(ctx);
      const team = await visibleTeam(person, req.teamId);
      const em = deps.orm.em.fork();
      const inherited = team.organizationId ? await organizationRules(em, team.organizationId) : [];
      const own = await teamRules(em, team.teamId);
      return create(ListTeamRulesResponseSchema, { items: [...inherited, ...own].map(notificationRuleView) });
    },

    async createTeamRule(req, ctx) {
      const person = ruleOwner(ctx);
      const team = await visibleTeam(person, req.teamId);
      if (!mayManageTeamRules(person, team.teamId))
        throw ProblemError.forbidden("Adding a team's rules takes team_admin or above on the team.");
      const fields = fieldsOf(req.rule);
      const row = await insertRule(deps.orm.em.fork(), team, fields);
      return create(CreateTeamRuleResponseSchema, { rule: notificationRuleView(row) });
    },

    async deleteRule(req, ctx) {
      const person = ruleOwner(ctx);
      const em = deps.orm.em.fork();
      const row = await findRule(em, uuidOrNotFound(req.id, "rule"));
      const notFound = () => ProblemError.notFound("No such rule.");
      if (!row) throw notFound();
      if (row.teamId) {
        if (!mayReadTeamRules(person, row.teamId)) throw notFound();
        if (!mayManageTeamRules(person, row.teamId))
          throw ProblemError.forbidden("Removing a team's rules takes team_admin or above on the team.");
      } else {
        if (!row.organizationId || !mayReadOrganizationRules(person, row.organizationId)) throw notFound();
        if (!mayManageOrganizationRules(person))
          throw ProblemError.forbidden("Only a super_admin removes an organization's rules.");
      }
      await deleteRule(em, row.id);
      return create(DeleteRuleResponseSchema, {});
    },
  });
}
