// The delivery job: sends the e-mails the event handlers queued in `deliveries`. Each run claims the due rows for a
// lease, sends them, and marks each sent, due again after a back-off, or given up. A failure is logged with the
// delivery id, kind and the server's answer, never the recipient's message (a reset link is a secret).
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "@sca/log";
import { open } from "@sca/secret-box";
import type { Mailer } from "../clients/smtp-mailer.ts";
import { nextAttemptAt } from "../domain/delivery-backoff.ts";
import type { EmailMessage } from "../domain/email-messages.ts";
import { claimDueDeliveries, markAttemptFailed, markSent } from "../store/deliveries.ts";

/** Deliveries claimed at once. */
export const DELIVERY_BATCH = 20;

export interface DeliveryJobDeps {
  orm: MikroORM;
  mailer: Mailer;
  messageKey: Buffer;
  logger: Logger;
  /** First back-off; each further failure doubles it (at most an hour). */
  retryBaseMs: number;
  /** How long a claimed row is kept from other runs: longer than a batch of sends at the SMTP timeout. */
  leaseMs: number;
}

/** Sends what is due, batch after batch, until nothing is due or `signal` aborts; answers how many were sent. */
export async function deliverDueEmails(deps: DeliveryJobDeps, signal: AbortSignal): Promise<number> {
  let sent = 0;
  while (!signal.aborted) {
    const claimed = await claimDueDeliveries(deps.orm.em.fork(), DELIVERY_BATCH, deps.leaseMs);
    if (claimed.length === 0) break;
    for (const d of claimed) {
      if (signal.aborted) break; // the rest are due again when their lease ends
      const em = deps.orm.em.fork();
      try {
        const message = JSON.parse(open(d.messageSealed, deps.messageKey)) as EmailMessage;
        await deps.mailer.send(d.recipient, message);
        await markSent(em, d.id);
        sent += 1;
      } catch (err) {
        const reason = smtpReason(err);
        const retryAt = nextAttemptAt(d.attempts, new Date(), deps.retryBaseMs, d.expiresAt);
        await markAttemptFailed(em, d.id, reason, retryAt);
        deps.logger.warn(
          { deliveryId: d.id, kind: d.kind, attempts: d.attempts, reason, retryAt: retryAt?.toISOString() ?? null },
          retryAt ? "could not send an e-mail; it is tried again later" : "could not send an e-mail; given up",
        );
      }
    }
  }
  return sent;
}

// What the SMTP exchange answered (code and server text), without the message or the address.
function smtpReason(err: unknown): string {
  const e = err as { code?: unknown; responseCode?: unknown; command?: unknown; response?: unknown };
  const parts = [e.code, e.responseCode, e.command, e.response].filter(
    (x) => typeof x === "string" || typeof x === "number",
  );
  return parts.length > 0 ? parts.join(" ") : err instanceof Error ? err.name : "unknown error";
}
