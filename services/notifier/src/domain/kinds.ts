// The notification kinds (docs/notifications.md): what the product tells people about, each with its severity when
// one applies, its default channels, and whether a person may tune it. The spec lists none; these follow what the
// portal does; preferences, routing rules and the documents share this one vocabulary.
import { NOTIFICATION_SEVERITIES, type NotificationSeverity } from "@sca/vocabulary";

/** The channels a person tunes in their preferences. */
export const CHANNELS = ["in_app", "email"] as const;
export type Channel = (typeof CHANNELS)[number];

/** The channels a routing rule may add: a person's two, and the deployment's chat webhooks. */
export const RULE_CHANNELS = ["in_app", "email", "slack", "teams"] as const;
export type RuleChannel = (typeof RULE_CHANNELS)[number];

export interface KindSpec {
  kind: string;
  /** null: a notification of this kind carries no severity (it never matches a rule naming one). */
  severity: NotificationSeverity | null;
  /** The channels a person gets unless their preferences say otherwise. */
  defaults: Record<Channel, boolean>;
  /** false: security mail (the reset link) goes out whatever the preferences say, and is not in them. */
  tunable: boolean;
}

const kind = (name: string, severity: NotificationSeverity | null, email: boolean, tunable = true): KindSpec => ({
  kind: name,
  severity,
  defaults: { in_app: true, email },
  tunable,
});

export const KINDS: readonly KindSpec[] = [
  kind("scan.failed", "medium", true),
  kind("scan.succeeded", null, false),
  kind("findings.new", null, false),
  kind("vulnerability.kev_listed", "critical", true),
  kind("vulnerability.sla_breached", "high", true),
  kind("gate.failed", "high", true),
  kind("gate.passed", null, false),
  kind("approval.requested", null, true),
  kind("approval.decided", null, true),
  kind("package.malicious", "critical", true),
  kind("queue.backlog", "medium", false),
  {
    kind: "account.password_reset",
    severity: null,
    defaults: { in_app: false, email: true },
    tunable: false,
  },
];

const BY_NAME = new Map(KINDS.map((k) => [k.kind, k]));

export function kindSpec(name: string): KindSpec | undefined {
  return BY_NAME.get(name);
}

/** The kinds a person's preferences cover, in catalogue order. */
export const TUNABLE_KINDS: readonly KindSpec[] = KINDS.filter((k) => k.tunable);

/**
 * Whether the deployment's chat webhooks (SLACK_WEBHOOK_URL, TEAMS_WEBHOOK_URL) carry a kind without a rule naming
 * them: the kinds worth interrupting people for, those whose e-mail is on by default. Rules add the others.
 */
export function chatByDefault(name: string): boolean {
  const spec = kindSpec(name);
  return spec !== undefined && spec.tunable && spec.defaults.email;
}

/** Severity order: `severity` is `minimum` or above. */
export function severityAtLeast(severity: NotificationSeverity | null, minimum: NotificationSeverity): boolean {
  return severity !== null && NOTIFICATION_SEVERITIES.indexOf(severity) >= NOTIFICATION_SEVERITIES.indexOf(minimum);
}
