// A team's own chat webhook URLs (team_chat_webhooks), sealed with the key the caller gives: the store never sees a
// URL in the clear, and reading one back opens it only for a delivery or for a read's host.
import type { EntityManager } from "@mikro-orm/postgresql";
import { rawQuery } from "@sca/db";
import { open, seal } from "@sca/secret-box";
import { TeamChatWebhook, type TeamChatWebhookRow } from "./entities/team-chat-webhook.ts";

export interface TeamWebhookUrls {
  slack: string | null;
  teams: string | null;
  updatedAt: Date | null;
}

const NONE: TeamWebhookUrls = { slack: null, teams: null, updatedAt: null };

function opened(row: TeamChatWebhookRow | null, key: Buffer): TeamWebhookUrls {
  if (!row) return NONE;
  return {
    slack: row.slackUrlSealed ? open(row.slackUrlSealed, key) : null,
    teams: row.teamsUrlSealed ? open(row.teamsUrlSealed, key) : null,
    updatedAt: row.updatedAt,
  };
}

export async function teamWebhookUrls(em: EntityManager, teamId: string, key: Buffer): Promise<TeamWebhookUrls> {
  return opened(await em.findOne(TeamChatWebhook, { teamId }, { disableIdentityMap: true }), key);
}

/** Writes the team's URLs (null: none) under a lock of its row; answers what was stored before. */
export async function putTeamWebhookUrls(
  em: EntityManager,
  team: { teamId: string; organizationId: string | null },
  change: (before: TeamWebhookUrls) => { slack: string | null; teams: string | null },
  by: string,
  key: Buffer,
): Promise<{ before: TeamWebhookUrls; after: TeamWebhookUrls }> {
  // Two first writes of a team queue here instead of racing to insert.
  await rawQuery(em, "select pg_advisory_xact_lock(hashtext(?))", [`team-chat-webhooks:${team.teamId}`]);
  const row = await em.findOne(TeamChatWebhook, { teamId: team.teamId }, { disableIdentityMap: true });
  const before = opened(row, key);
  const next = change(before);
  const now = new Date();
  const values = {
    organizationId: team.organizationId,
    slackUrlSealed: next.slack ? seal(next.slack, key) : null,
    teamsUrlSealed: next.teams ? seal(next.teams, key) : null,
    updatedByUserId: by,
    updatedAt: now,
  };
  if (row) await em.nativeUpdate(TeamChatWebhook, { teamId: team.teamId }, values);
  else await em.insert(TeamChatWebhook, { teamId: team.teamId, ...values });
  return { before, after: { ...next, updatedAt: now } };
}

export async function deleteTeamWebhookUrls(em: EntityManager, teamId: string): Promise<boolean> {
  return (await em.nativeDelete(TeamChatWebhook, { teamId })) > 0;
}
