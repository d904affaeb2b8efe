// The JSON of the notifier's answers (docs/notifications.md).
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { NotificationRule } from "@sca/proto/sca/notifier/v1/notification_rules_pb.ts";
import type { KindPreference, Notification } from "@sca/proto/sca/notifier/v1/notifier_pb.ts";
import { NOTIFICATION_SEVERITIES, type NotificationSeverity } from "@sca/vocabulary";
import { z } from "zod";

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

export const notificationSchema = z
  .object({
    id: z.uuid(),
    kind: z.string().meta({ description: "A kind of docs/notifications.md, e.g. scan.failed" }),
    severity: z.enum(NOTIFICATION_SEVERITIES).nullable(),
    title: z.string(),
    body: z.string(),
    link: z.string().nullable().meta({ description: "A path of the portal's frontend" }),
    team_id: z.uuid().nullable(),
    project_id: z.uuid().nullable(),
    scan_id: z.uuid().nullable(),
    is_read: z.boolean(),
    read_at: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "Notification" });

export function notificationJson(n: Notification): z.input<typeof notificationSchema> {
  return {
    id: n.id,
    kind: n.kind,
    severity: (n.severity as NotificationSeverity | undefined) ?? null,
    title: n.title,
    body: n.body,
    link: n.link ?? null,
    team_id: n.teamId ?? null,
    project_id: n.projectId ?? null,
    scan_id: n.scanId ?? null,
    is_read: n.readAt !== undefined,
    read_at: iso(n.readAt),
    created_at: iso(n.createdAt)!,
  };
}

const channels = z.object({ in_app: z.boolean(), email: z.boolean() });

/** How a person's notification e-mails go out (docs/notifications.md, "Daily digest"). */
export const EMAIL_DIGEST = ["each", "daily"] as const;

export const preferencesSchema = z
  .object({
    kinds: z.record(z.string(), channels).meta({
      description: "Every kind one may tune, each with its channels in force (their choice, else the default)",
    }),
    email_digest: z.enum(EMAIL_DIGEST).meta({
      description: "each: one e-mail per notification; daily: the e-mails are held for one digest a day",
    }),
  })
  .meta({ id: "NotificationPreferences" });

export function preferencesJson(kinds: KindPreference[], emailDigest: string): z.input<typeof preferencesSchema> {
  return {
    kinds: Object.fromEntries(kinds.map((k) => [k.kind, { in_app: k.inApp, email: k.email }])),
    email_digest: emailDigest === "daily" ? "daily" : "each",
  };
}

export const RULE_CHANNELS = ["in_app", "email", "slack", "teams"] as const;

export const notificationRuleSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid().nullable(),
    team_id: z.uuid().nullable().meta({ description: "null for an organization's rule" }),
    project_id: z.uuid().nullable(),
    name: z.string(),
    kinds: z.array(z.string()).meta({ description: "Empty: every kind" }),
    min_severity: z.enum(NOTIFICATION_SEVERITIES).nullable(),
    channels: z.array(z.enum(RULE_CHANNELS)),
    email_recipients: z.array(z.string()),
    is_active: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "NotificationRule" });

export function notificationRuleJson(r: NotificationRule): z.input<typeof notificationRuleSchema> {
  return {
    id: r.id,
    organization_id: r.organizationId ?? null,
    team_id: r.teamId ?? null,
    project_id: r.projectId ?? null,
    name: r.name,
    kinds: r.kinds,
    min_severity: (r.minSeverity as NotificationSeverity | undefined) ?? null,
    channels: r.channels as (typeof RULE_CHANNELS)[number][],
    email_recipients: r.emailRecipients,
    is_active: r.isActive,
    created_at: iso(r.createdAt)!,
    updated_at: iso(r.updatedAt)!,
  };
}
