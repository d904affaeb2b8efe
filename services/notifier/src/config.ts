// The keys the notifier reads besides the runtime's: its channels (e-mail, chat and ticket webhooks), the queue
// backlog alert, and the shared ones it uses.
import { key, keys, parse as p, serviceAddressKeys } from "@sca/config";
import { SERVICES } from "@sca/runtime/services";

export const notifierKeys = {
  ...serviceAddressKeys("identity", SERVICES.identity),
  PASSWORD_RESET_BASE_URL: keys.PASSWORD_RESET_BASE_URL,
  // Notifications (docs/notifications.md)
  /** Empty: the e-mail channel is skipped (logged once at start). */
  SMTP_HOST: keys.SMTP_HOST,
  SMTP_PORT: keys.SMTP_PORT,
  SMTP_USER: key(p.text("")),
  SMTP_PASSWORD: key(p.text(""), true),
  /** Upgrade the connection with STARTTLS and refuse a server that does not offer it; false: plain SMTP. */
  SMTP_USE_STARTTLS: key(p.bool(true)),
  SMTP_FROM: key(p.text("SCA Portal <no-reply@localhost>")),
  SMTP_TIMEOUT_SECONDS: key(p.int(10, { min: 1, max: 300 })),
  /** Timeout of each chat and ticket webhook call (connect to answer). */
  NOTIFICATION_HTTP_TIMEOUT_SECONDS: key(p.int(10, { min: 1, max: 300 })),
  /** Org-wide chat webhooks; empty: that channel is off. The URL is the credential: secret. */
  SLACK_WEBHOOK_URL: key(p.httpUrl(""), true),
  TEAMS_WEBHOOK_URL: key(p.httpUrl(""), true),
  /** Where ticket events are posted; empty: nothing is called. */
  TICKET_WEBHOOK_URL: key(p.httpUrl(""), true),
  /** Notification kinds posted as ticket events; empty: every kind. */
  TICKET_WEBHOOK_EVENTS: key(p.list()),
  /**
   * Hosts a team's own chat webhook URL may name (docs/notifications.md, "Per-team chat webhooks"): exact names, or
   * `*.suffix` for any name under it. Team admins set those URLs, so the notifier must not be pointed anywhere else.
   */
  TEAM_CHAT_WEBHOOK_ALLOWED_HOSTS: key(
    p.list(["hooks.slack.com", "*.webhook.office.com", "*.logic.azure.com", "*.api.powerplatform.com"]),
  ),
  /** Optional bearer of the ticket webhook calls. */
  TICKET_WEBHOOK_TOKEN: key(p.text(""), true),
  /** The backlog series (the scan and default queues' Kafka consumer lag); the alert needs it. */
  QUEUE_BACKLOG_METRICS_ENABLED: key(p.bool(false)),
  /** The daily backlog sweep's in-app alert (once per breach); only with QUEUE_BACKLOG_METRICS_ENABLED. */
  QUEUE_BACKLOG_ALERT_ENABLED: key(p.bool(false)),
  /** Messages waiting in the scan queue (the scan-job topics) past which it is in breach. */
  QUEUE_BACKLOG_ALERT_SCAN_QUEUE_THRESHOLD: key(p.int(10, { min: 1, max: 10_000_000 })),
  /** Messages waiting in the default queue (the domain events, its slowest consumer) past which it is in breach. */
  QUEUE_BACKLOG_ALERT_DEFAULT_QUEUE_THRESHOLD: key(p.int(100, { min: 1, max: 10_000_000 })),
};
