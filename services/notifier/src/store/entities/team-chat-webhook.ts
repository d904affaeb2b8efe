import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * A team's own Slack and Teams webhook URLs (docs/notifications.md, "Per-team chat webhooks"), each sealed with
 * @sca/secret-box (purpose `team-chat-webhook`): the URL is the credential and never rests in the clear.
 */
export const TeamChatWebhook = defineEntity({
  name: "TeamChatWebhook",
  tableName: "team_chat_webhooks",
  properties: {
    teamId: p.uuid().primary(),
    organizationId: p.uuid().strictNullable(),
    slackUrlSealed: p.text().strictNullable(),
    teamsUrlSealed: p.text().strictNullable(),
    updatedByUserId: p.uuid(),
    updatedAt: p.datetime(),
  },
});

export type TeamChatWebhookRow = InferEntity<typeof TeamChatWebhook>;
