// What the event handlers need to raise notifications and queue deliveries.
import { seal } from "@sca/secret-box";
import type { Directory } from "../clients/directory.ts";
import type { Recipients } from "../clients/recipients.ts";

export interface RaiseDeps {
  recipients: Recipients;
  /** A team's organization, for its organization's routing rules. */
  directory: Directory;
  /** false without SMTP_HOST: no e-mail is queued. */
  emailEnabled: boolean;
  /** The org-wide chat webhooks that are set (SLACK_WEBHOOK_URL, TEAMS_WEBHOOK_URL). */
  chat: { slack: boolean; teams: boolean };
  /** TICKET_WEBHOOK_URL is set; `kinds` empty: every kind (TICKET_WEBHOOK_EVENTS). */
  ticket: { enabled: boolean; kinds: readonly string[] };
  /** Seals a message for the deliveries table (secretBoxKey(SECRET_KEY, "delivery-message", "sca-notifier")). */
  messageKey: Buffer;
  /** The frontend's base (PASSWORD_RESET_BASE_URL): links in e-mails are made absolute against its origin. */
  frontendBase: string;
  /** Opens a team's own chat webhook URLs (secretBoxKey(SECRET_KEY, "team-chat-webhook", "sca-notifier")). */
  teamWebhookKey: Buffer;
}

/** Seals a message (an e-mail, or a webhook's JSON body) for the deliveries table. */
export function sealMessage(message: unknown, key: Buffer): string {
  return seal(JSON.stringify(message), key);
}
