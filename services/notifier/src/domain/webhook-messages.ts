// The bodies the notifier posts to webhooks, each in its receiver's own format:
// - Slack: an incoming-webhook message, Block Kit `blocks` with `text` as the fallback a notification shows;
// - Microsoft Teams: a Workflows webhook message ("When a Teams webhook request is received"), one attachment
//   holding an Adaptive Card (1.4). The older Office 365 connector MessageCard is retired by Microsoft, so not used.
// - Ticket events: our own JSON (the spec leaves the payload to us; docs/notifications.md lists its fields).
import type { NotificationSeverity } from "@sca/vocabulary";

export interface WebhookNotification {
  eventId: string;
  kind: string;
  severity: NotificationSeverity | null;
  title: string;
  body: string;
  /** Absolute portal URL, or null. */
  url: string | null;
  organizationId: string | null;
  teamId: string | null;
  projectId: string | null;
  scanId: string | null;
  occurredAt: Date;
}

// Slack's limits: a header's plain text 150 characters, a section's text 3000.
const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);
// Slack's mrkdwn gives &, < and > a meaning: they are escaped as its documents say.
const slackEscape = (s: string) => s.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]!);

function facts(n: WebhookNotification): string {
  return [n.kind, ...(n.severity ? [`severity ${n.severity}`] : [])].join(" · ");
}

export function slackMessage(n: WebhookNotification): Record<string, unknown> {
  const blocks: Record<string, unknown>[] = [
    { type: "header", text: { type: "plain_text", text: clip(n.title, 150), emoji: false } },
    { type: "section", text: { type: "mrkdwn", text: clip(slackEscape(n.body), 3000) } },
    { type: "context", elements: [{ type: "mrkdwn", text: slackEscape(facts(n)) }] },
  ];
  if (n.url)
    blocks.push({
      type: "actions",
      elements: [{ type: "button", text: { type: "plain_text", text: "Open in the portal" }, url: n.url }],
    });
  return { text: clip(`${n.title}: ${n.body}`, 3000), blocks };
}

export function teamsMessage(n: WebhookNotification): Record<string, unknown> {
  const card = {
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    type: "AdaptiveCard",
    version: "1.4",
    body: [
      { type: "TextBlock", text: n.title, weight: "Bolder", size: "Medium", wrap: true },
      { type: "TextBlock", text: n.body, wrap: true },
      {
        type: "FactSet",
        facts: [{ title: "Kind", value: n.kind }, ...(n.severity ? [{ title: "Severity", value: n.severity }] : [])],
      },
    ],
    ...(n.url ? { actions: [{ type: "Action.OpenUrl", title: "Open in the portal", url: n.url }] } : {}),
  };
  return {
    type: "message",
    attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", contentUrl: null, content: card }],
  };
}

/** A ticket event (schema `sca.ticket-event.v1`): what a tracker integration needs to open or update a ticket. */
export function ticketEvent(n: WebhookNotification): Record<string, unknown> {
  return {
    schema: "sca.ticket-event.v1",
    event_id: n.eventId,
    kind: n.kind,
    severity: n.severity,
    title: n.title,
    body: n.body,
    url: n.url,
    organization_id: n.organizationId,
    team_id: n.teamId,
    project_id: n.projectId,
    scan_id: n.scanId,
    occurred_at: n.occurredAt.toISOString(),
  };
}
