// The delivery job: sends what the event handlers queued in `deliveries` (e-mails, chat and ticket webhook calls).
// Each run claims the due rows for a lease, sends them through their channel's sender, and marks each sent, due
// again after a back-off, or given up. A failure is logged with the delivery id, channel, kind and the server's
// answer: never the message (a reset link is a secret), an address or a webhook URL.
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "@sca/log";
import { open } from "@sca/secret-box";
import { nextAttemptAt } from "../domain/delivery-backoff.ts";
import {
  claimDueDeliveries,
  markAttemptFailed,
  markSent,
  type ClaimedDelivery,
  type DeliveryChannel,
} from "../store/deliveries.ts";

/** Deliveries claimed at once. */
export const DELIVERY_BATCH = 20;

/** Sends one claimed delivery's opened message; throws when it did not go. */
export type Sender = (delivery: ClaimedDelivery, message: unknown) => Promise<void>;

export interface DeliveryJobDeps {
  orm: MikroORM;
  /** The channels this process can send; a row of another channel is given up. */
  senders: Partial<Record<DeliveryChannel, Sender>>;
  messageKey: Buffer;
  logger: Logger;
  /** First back-off; each further failure doubles it (at most an hour). */
  retryBaseMs: number;
  /** How long a claimed row is kept from other runs: longer than a batch of sends at their timeouts. */
  leaseMs: number;
}

const WHAT: Record<DeliveryChannel, string> = {
  email: "an e-mail",
  slack: "a Slack message",
  teams: "a Teams message",
  ticket: "a ticket event",
};

/** Sends what is due, batch after batch, until nothing is due or `signal` aborts; answers how many were sent. */
export async function deliverDue(deps: DeliveryJobDeps, signal: AbortSignal): Promise<number> {
  let sent = 0;
  while (!signal.aborted) {
    const claimed = await claimDueDeliveries(deps.orm.em.fork(), DELIVERY_BATCH, deps.leaseMs);
    if (claimed.length === 0) break;
    for (const d of claimed) {
      if (signal.aborted) break; // the rest are due again when their lease ends
      const em = deps.orm.em.fork();
      const send = deps.senders[d.channel];
      try {
        if (!send) throw new Error("the channel is not configured");
        await send(d, JSON.parse(open(d.messageSealed, deps.messageKey)));
        await markSent(em, d.id);
        sent += 1;
      } catch (err) {
        const reason = failureReason(err);
        const retryAt = send ? nextAttemptAt(d.attempts, new Date(), deps.retryBaseMs, d.expiresAt) : null;
        await markAttemptFailed(em, d.id, reason, retryAt);
        deps.logger.warn(
          {
            deliveryId: d.id,
            channel: d.channel,
            kind: d.kind,
            attempts: d.attempts,
            reason,
            retryAt: retryAt?.toISOString() ?? null,
          },
          `could not send ${WHAT[d.channel]}; ${retryAt ? "it is tried again later" : "given up"}`,
        );
      }
    }
  }
  return sent;
}

// What the other end answered: the SMTP exchange's code and server text, or a webhook's status (WebhookError's
// message is built to be safe); never the message, an address or a URL.
function failureReason(err: unknown): string {
  const e = err as { code?: unknown; responseCode?: unknown; command?: unknown; response?: unknown };
  const parts = [e.code, e.responseCode, e.command, e.response].filter(
    (x) => typeof x === "string" || typeof x === "number",
  );
  if (parts.length > 0) return parts.join(" ");
  if (err instanceof Error && (err.name === "WebhookError" || err.message === "the channel is not configured"))
    return err.message;
  return err instanceof Error ? err.name : "unknown error";
}
