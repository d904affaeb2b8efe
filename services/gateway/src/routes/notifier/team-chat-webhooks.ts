// /v1/teams/{team_id}/chat-webhooks (TeamChatWebhookService of the notifier): a team's own Slack and Teams webhook
// URLs, the spec's "per-team in the UI" chat webhooks. team_admin or above on the team, super_admin; a lesser member
// 403, anyone else 404. The URLs are write-only: reads answer whether each is set and its host.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { TeamChatWebhooks } from "@sca/proto/sca/notifier/v1/team_chat_webhooks_pb.ts";
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

const TAGS = ["notification rules"];

const stateSchema = z
  .object({
    configured: z.boolean(),
    host: z.string().nullable().meta({ description: "The URL's host when configured; the URL is never answered" }),
  })
  .meta({ id: "ChatWebhookState" });

const webhooksSchema = z
  .object({
    team_id: z.uuid(),
    slack: stateSchema,
    teams: stateSchema,
    updated_at: z.string().nullable(),
  })
  .meta({ id: "TeamChatWebhooks", description: "A team's own chat webhooks; their URLs are write-only" });

const webhooksJson = (w: TeamChatWebhooks): z.input<typeof webhooksSchema> => {
  const state = (s: TeamChatWebhooks["slack"]) => ({
    configured: s?.configured ?? false,
    host: s?.configured ? s.host : null,
  });
  return {
    team_id: w.teamId,
    slack: state(w.slack),
    teams: state(w.teams),
    updated_at: w.updatedAt ? timestampDate(w.updatedAt).toISOString() : null,
  };
};

const url = z
  .string()
  .min(1)
  .max(2048)
  .nullable()
  .optional()
  .meta({ description: "Write-only. A URL sets or replaces it, null removes it, left out keeps it" });
const putBody = z.object({ slack_url: url, teams_url: url }).strict().meta({ id: "TeamChatWebhooksPut" });

const params = z.object({ team_id: z.uuid() });
const forbidden = problemResponse("An API key, or a member below team_admin");
const notFound = problemResponse("No such team the caller belongs to");

export function teamChatWebhookRoutes(ctx: GatewayContext): Route[] {
  const webhooks = ctx.clients.notifier.chatWebhooks;
  const auth = ctx.auth.route("caller");
  const path = "/v1/teams/{team_id}/chat-webhooks";
  return [
    defineRoute({
      method: "get",
      path,
      summary: "A team's own chat webhooks (never their URLs)",
      tags: TAGS,
      operationId: "getTeamChatWebhooks",
      auth,
      request: { params },
      responses: {
        200: { description: "Whether each webhook is set, and its host", schema: webhooksSchema },
        403: forbidden,
        404: notFound,
      },
      handler: async ({ params, call }) => {
        const { webhooks: w } = await webhooks.getTeamChatWebhooks({ teamId: params.team_id }, call);
        return { status: 200, body: webhooksJson(w!) };
      },
    }),
    defineRoute({
      method: "put",
      path,
      summary: "Set, replace or remove a team's own Slack and Teams webhook URLs",
      description:
        "The team's notifications go to these URLs as well as the organization's (same messages and retries). " +
        "Stored encrypted, never answered; each change is audited without the URL.",
      tags: TAGS,
      operationId: "putTeamChatWebhooks",
      auth,
      request: { params, body: putBody },
      responses: {
        200: { description: "Whether each webhook is now set, and its host", schema: webhooksSchema },
        403: forbidden,
        404: notFound,
        422: problemResponse("A URL that is not an absolute http or https URL, or a malformed body"),
      },
      handler: async ({ params, body, call }) => {
        const { webhooks: w } = await webhooks.putTeamChatWebhooks(
          {
            teamId: params.team_id,
            ...(typeof body.slack_url === "string" ? { slackUrl: body.slack_url } : {}),
            clearSlack: body.slack_url === null,
            ...(typeof body.teams_url === "string" ? { teamsUrl: body.teams_url } : {}),
            clearTeams: body.teams_url === null,
          },
          call,
        );
        return { status: 200, body: webhooksJson(w!) };
      },
    }),
    defineRoute({
      method: "delete",
      path,
      summary: "Remove a team's own chat webhooks",
      tags: TAGS,
      operationId: "deleteTeamChatWebhooks",
      auth,
      request: { params },
      responses: { 204: { description: "Removed (or none was set)" }, 403: forbidden, 404: notFound },
      handler: async ({ params, call }) => {
        await webhooks.deleteTeamChatWebhooks({ teamId: params.team_id }, call);
        return { status: 204 };
      },
    }),
  ];
}
