// Turns one event's notification into what each channel carries, in the event's transaction: in-app rows for the
// default recipients who keep in-app, e-mail deliveries for those who keep e-mail (held for the daily digest of
// those who take it) and for the addresses the matching routing rules add, and one delivery per chat webhook and
// ticket webhook it goes to. Everything is unique per (event, channel, recipient), so a redelivered event adds
// nothing.
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { RecipientPerson } from "../clients/recipients.ts";
import { notificationEmail, portalUrl } from "../domain/email-messages.ts";
import { chatByDefault } from "../domain/kinds.ts";
import { wants } from "../domain/preferences.ts";
import { routingOf } from "../domain/routing-rules.ts";
import { teamRecipient } from "../domain/team-chat-webhooks.ts";
import type { NotificationContent } from "../domain/scan-outcomes.ts";
import { slackMessage, teamsMessage, ticketEvent, type WebhookNotification } from "../domain/webhook-messages.ts";
import { enqueueDeliveries, ORG_WEBHOOK, type NewDelivery } from "../store/deliveries.ts";
import { digestSubscribers, holdForDigest, type NewDigestItem } from "../store/email-digests.ts";
import { activeRulesFor } from "../store/notification-rules.ts";
import { insertNotifications } from "../store/notifications.ts";
import { teamWebhookUrls } from "../store/team-chat-webhooks.ts";
import { choicesOf } from "../store/preferences.ts";
import { sealMessage, type RaiseDeps } from "./delivery-deps.ts";

export interface RaisedNotification {
  content: NotificationContent;
  teamId: string | null;
  projectId: string | null;
  scanId: string | null;
  /** The default recipients (the team by role, people named by the event). */
  people: readonly RecipientPerson[];
  sourceEventId: string;
  occurredAt: Date;
}

export async function raiseNotification(em: EntityManager, deps: RaiseDeps, n: RaisedNotification): Promise<void> {
  const { content, people } = n;
  const organizationId = n.teamId ? ((await deps.directory.team(n.teamId))?.organizationId ?? null) : null;
  const routing = routingOf(await activeRulesFor(em, organizationId, n.teamId), {
    kind: content.kind,
    severity: content.severity,
    projectId: n.projectId,
  });
  const choices = await choicesOf(
    em,
    people.map((p) => p.userId),
  );
  const keeps = (p: RecipientPerson, channel: "in_app" | "email") =>
    wants(choices.get(p.userId) ?? [], content.kind, channel, routing.channels.has(channel));

  const ids = await insertNotifications(
    em,
    people
      .filter((p) => keeps(p, "in_app"))
      .map((p) => ({
        id: randomUUID(),
        userId: p.userId,
        kind: content.kind,
        severity: content.severity,
        title: content.title,
        body: content.body,
        link: content.link,
        organizationId,
        teamId: n.teamId,
        projectId: n.projectId,
        scanId: n.scanId,
        sourceEventId: n.sourceEventId,
      })),
  );

  const url = portalUrl(deps.frontendBase, content.link);
  const deliveries: NewDelivery[] = [];
  const delivery = (channel: NewDelivery["channel"], recipient: string, message: unknown, userId: string | null) =>
    deliveries.push({
      channel,
      kind: content.kind,
      userId,
      notificationId: userId ? (ids.get(userId) ?? null) : null,
      recipient,
      messageSealed: sealMessage(message, deps.messageKey),
      sourceEventId: n.sourceEventId,
      expiresAt: null,
    });

  const held: NewDigestItem[] = [];
  if (deps.emailEnabled) {
    const email = notificationEmail({ title: content.title, body: content.body, url });
    const addressed = new Set<string>();
    const emailed = people.filter((p) => keeps(p, "email"));
    const digest = await digestSubscribers(
      em,
      emailed.map((p) => p.userId),
    );
    for (const p of emailed) {
      addressed.add(p.email.toLowerCase());
      if (digest.has(p.userId))
        held.push({
          userId: p.userId,
          email: p.email,
          kind: content.kind,
          severity: content.severity,
          title: content.title,
          body: content.body,
          link: content.link,
          sourceEventId: n.sourceEventId,
        });
      else delivery("email", p.email, email, p.userId);
    }
    for (const address of routing.emailRecipients) if (!addressed.has(address)) delivery("email", address, email, null);
  }

  const webhook: WebhookNotification = {
    eventId: n.sourceEventId,
    kind: content.kind,
    severity: content.severity,
    title: content.title,
    body: content.body,
    url,
    organizationId,
    teamId: n.teamId,
    projectId: n.projectId,
    scanId: n.scanId,
    occurredAt: n.occurredAt,
  };
  const toChat = (channel: "slack" | "teams") => chatByDefault(content.kind) || routing.channels.has(channel);
  if (deps.chat.slack && toChat("slack")) delivery("slack", ORG_WEBHOOK, slackMessage(webhook), null);
  if (deps.chat.teams && toChat("teams")) delivery("teams", ORG_WEBHOOK, teamsMessage(webhook), null);
  // The team's own webhooks carry the same kinds in the same formats; the URL is looked up again when sending.
  const own = n.teamId ? await teamWebhookUrls(em, n.teamId, deps.teamWebhookKey) : null;
  if (n.teamId && own?.slack && toChat("slack"))
    delivery("slack", teamRecipient(n.teamId), slackMessage(webhook), null);
  if (n.teamId && own?.teams && toChat("teams"))
    delivery("teams", teamRecipient(n.teamId), teamsMessage(webhook), null);
  if (deps.ticket.enabled && (deps.ticket.kinds.length === 0 || deps.ticket.kinds.includes(content.kind)))
    delivery("ticket", ORG_WEBHOOK, ticketEvent(webhook), null);

  await enqueueDeliveries(em, deliveries);
  await holdForDigest(em, held);
}
