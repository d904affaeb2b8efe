// The deliveries table (the outbox of outbound messages): the one module that reads or writes it (docs/adr/0005).
import { randomUUID } from "node:crypto";
import { LockMode, raw, type EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { Delivery } from "./entities/delivery.ts";

/** The channels of the outbox. */
export type DeliveryChannel = "email" | "slack" | "teams" | "ticket";

/** The recipient of a webhook delivery to the deployment's own URL (kept in its key, never in the table). */
export const ORG_WEBHOOK = "org";

export interface NewDelivery {
  channel: DeliveryChannel;
  kind: string;
  userId: string | null;
  notificationId: string | null;
  recipient: string;
  messageSealed: string;
  sourceEventId: string;
  expiresAt: Date | null;
}

/** Adds deliveries; one the same event already queued for the same recipient is left as it is. */
export async function enqueueDeliveries(em: EntityManager, rows: readonly NewDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  await em
    .createQueryBuilder(Delivery)
    .insert(rows.map((r) => ({ id: randomUUID(), ...r })))
    .onConflict(["sourceEventId", "channel", "recipient"])
    .ignore()
    .execute("run");
}

export interface ClaimedDelivery {
  id: string;
  channel: DeliveryChannel;
  kind: string;
  recipient: string;
  messageSealed: string;
  attempts: number;
  expiresAt: Date | null;
}

/**
 * Claims up to `limit` due deliveries for `leaseMs`: their next attempt moves past the lease and their attempt count
 * goes up in one short transaction, so another replica skips them, and a process that dies while sending leaves
 * them due again once the lease ends.
 */
export async function claimDueDeliveries(
  em: EntityManager,
  limit: number,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  return em.transactional(async (tx) => {
    const due = await tx.find(
      Delivery,
      { status: "pending", nextAttemptAt: { $lte: new Date() } },
      {
        ...SNAPSHOT,
        orderBy: { nextAttemptAt: "asc" },
        limit,
        lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE,
        populate: ["messageSealed"],
      },
    );
    if (due.length === 0) return [];
    await tx.nativeUpdate(
      Delivery,
      { id: { $in: due.map((d) => d.id) } },
      { attempts: raw("attempts + 1"), nextAttemptAt: new Date(Date.now() + leaseMs) },
    );
    return due.map((d) => ({
      id: d.id,
      channel: d.channel as DeliveryChannel,
      kind: d.kind,
      recipient: d.recipient,
      messageSealed: d.messageSealed,
      attempts: d.attempts + 1,
      expiresAt: d.expiresAt,
    }));
  });
}

export async function markSent(em: EntityManager, id: string): Promise<void> {
  await em.nativeUpdate(Delivery, { id }, { status: "sent", sentAt: raw("now()"), lastError: null });
}

/** A failed try: due again at `retryAt`, or given up (failed) when null. */
export async function markAttemptFailed(
  em: EntityManager,
  id: string,
  error: string,
  retryAt: Date | null,
): Promise<void> {
  await em.nativeUpdate(
    Delivery,
    { id },
    retryAt
      ? { lastError: error.slice(0, 500), nextAttemptAt: retryAt }
      : { lastError: error.slice(0, 500), status: "failed" },
  );
}
