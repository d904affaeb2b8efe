// What the event handlers need to raise notifications and queue deliveries.
import { seal } from "@sca/secret-box";
import type { Recipients } from "../clients/recipients.ts";
import type { EmailMessage } from "../domain/email-messages.ts";

export interface RaiseDeps {
  recipients: Recipients;
  /** false without SMTP_HOST: no e-mail is queued. */
  emailEnabled: boolean;
  /** Seals a message for the deliveries table (secretBoxKey(SECRET_KEY, "delivery-message", "sca-notifier")). */
  messageKey: Buffer;
  /** The frontend's base (PASSWORD_RESET_BASE_URL): links in e-mails are made absolute against its origin. */
  frontendBase: string;
}

export function sealMessage(message: EmailMessage, key: Buffer): string {
  return seal(JSON.stringify(message), key);
}
