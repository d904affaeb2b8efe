// TeamChatWebhookService: a team's own Slack and Teams webhook URLs. team_admin or above on the team (a group_admin
// through the cascade) or super_admin; a lesser member is refused, anyone else told the team does not exist. The
// URLs are sealed before they are stored and never answered (a read shows each one's host); each change is audited
// without them.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { auditEmitter, callerActor } from "@sca/audit";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  ChatWebhookStateSchema,
  DeleteTeamChatWebhooksResponseSchema,
  GetTeamChatWebhooksResponseSchema,
  PutTeamChatWebhooksResponseSchema,
  TeamChatWebhookService,
  TeamChatWebhooksSchema,
  type TeamChatWebhooks,
} from "@sca/proto/sca/notifier/v1/team_chat_webhooks_pb.ts";
import { requirePerson, type Person } from "@sca/rpc";
import type { Directory } from "../clients/directory.ts";
import { mayManageTeamRules, mayReadTeamRules } from "../domain/routing-rules.ts";
import { webhookState, webhookUrlViolation } from "../domain/team-chat-webhooks.ts";
import {
  deleteTeamWebhookUrls,
  putTeamWebhookUrls,
  teamWebhookUrls,
  type TeamWebhookUrls,
} from "../store/team-chat-webhooks.ts";
import { UUID } from "@sca/ids";

export interface TeamChatWebhookDeps {
  orm: MikroORM;
  directory: Directory;
  /** secretBoxKey(SECRET_KEY, "team-chat-webhook", "sca-notifier"). */
  urlKey: Buffer;
  /** TEAM_CHAT_WEBHOOK_ALLOWED_HOSTS. */
  allowedHosts: readonly string[];
  wakeRelay(): void;
}

const emitAudit = auditEmitter({ source: "notifier", defaultTargetTable: "team_chat_webhooks" });
const noSuchTeam = () => ProblemError.notFound("No such team, or you are not a member of it.");

function person(ctx: HandlerContext): Person {
  return requirePerson(ctx, () => ProblemError.forbidden("Team chat webhooks are managed by people, not API keys."));
}

/** The team, when the caller may manage its webhooks; NotFound / PermissionDenied as the rules say. */
async function managedTeam(deps: TeamChatWebhookDeps, caller: Person, teamId: string) {
  if (!UUID.test(teamId)) throw noSuchTeam();
  const id = teamId.toLowerCase();
  if (!mayReadTeamRules(caller, id)) throw noSuchTeam();
  if (!mayManageTeamRules(caller, id))
    throw ProblemError.forbidden("A team's chat webhooks need the team_admin role on the team.");
  const place = await deps.directory.team(id);
  if (!place) throw noSuchTeam();
  return { teamId: id, organizationId: place.organizationId };
}

function view(teamId: string, urls: TeamWebhookUrls): TeamChatWebhooks {
  return create(TeamChatWebhooksSchema, {
    teamId,
    slack: create(ChatWebhookStateSchema, webhookState(urls.slack)),
    teams: create(ChatWebhookStateSchema, webhookState(urls.teams)),
    ...(urls.updatedAt ? { updatedAt: timestampFromDate(urls.updatedAt) } : {}),
  });
}

/** The names of the webhooks a change set, replaced or cleared: what the audit records (never a URL). */
function changed(before: TeamWebhookUrls, after: { slack: string | null; teams: string | null }): string[] {
  return (["slack", "teams"] as const).filter((c) => before[c] !== after[c]);
}

export function registerTeamChatWebhookService(router: ConnectRouter, deps: TeamChatWebhookDeps): void {
  router.service(TeamChatWebhookService, {
    async getTeamChatWebhooks(req, ctx) {
      const team = await managedTeam(deps, person(ctx), req.teamId);
      const urls = await teamWebhookUrls(deps.orm.em.fork(), team.teamId, deps.urlKey);
      return create(GetTeamChatWebhooksResponseSchema, { webhooks: view(team.teamId, urls) });
    },

    async putTeamChatWebhooks(req, ctx) {
      const caller = person(ctx);
      const team = await managedTeam(deps, caller, req.teamId);
      const v: FieldViolation[] = [];
      const check = (path: string, url: string | undefined, clear: boolean) => {
        if (url !== undefined && clear) v.push({ path, message: "cannot be set and cleared at once" });
        const problem = url === undefined ? null : webhookUrlViolation(path, url, deps.allowedHosts);
        if (problem) v.push(problem);
      };
      check("slack_url", req.slackUrl, req.clearSlack);
      check("teams_url", req.teamsUrl, req.clearTeams);
      if (v.length) throw ProblemError.validation(v);
      const { after } = await deps.orm.em.fork().transactional(async (em) => {
        const result = await putTeamWebhookUrls(
          em,
          team,
          (before) => ({
            slack: req.clearSlack ? null : (req.slackUrl ?? before.slack),
            teams: req.clearTeams ? null : (req.teamsUrl ?? before.teams),
          }),
          caller.user_id,
          deps.urlKey,
        );
        const fields = changed(result.before, result.after);
        if (fields.length > 0)
          emitAudit(em, {
            action: "team_chat_webhooks.updated",
            actor: callerActor(caller),
            targetId: team.teamId,
            teamId: team.teamId,
            organizationId: team.organizationId,
            outcome: "success",
            at: result.after.updatedAt!,
            details: { changed: fields.join(",") },
          });
        return result;
      });
      deps.wakeRelay();
      return create(PutTeamChatWebhooksResponseSchema, { webhooks: view(team.teamId, after) });
    },

    async deleteTeamChatWebhooks(req, ctx) {
      const caller = person(ctx);
      const team = await managedTeam(deps, caller, req.teamId);
      const deleted = await deps.orm.em.fork().transactional(async (em) => {
        const gone = await deleteTeamWebhookUrls(em, team.teamId);
        if (gone)
          emitAudit(em, {
            action: "team_chat_webhooks.deleted",
            actor: callerActor(caller),
            targetId: team.teamId,
            teamId: team.teamId,
            organizationId: team.organizationId,
            outcome: "success",
            at: new Date(),
          });
        return gone;
      });
      if (deleted) deps.wakeRelay();
      return create(DeleteTeamChatWebhooksResponseSchema, { deleted });
    },
  });
}
