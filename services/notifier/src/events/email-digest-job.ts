// The daily digest job: for each person with held notification e-mails, one digest e-mail (at most DIGEST_MAX
// entries; more make another) queued as a delivery in the transaction that deletes the items it carries, so an
// item is in exactly one digest whatever fails or runs twice. The delivery job sends it like any e-mail.
import { randomUUID } from "node:crypto";
import type { MikroORM } from "@mikro-orm/postgresql";
import { digestEmail, portalUrl } from "../domain/email-messages.ts";
import { enqueueDeliveries } from "../store/deliveries.ts";
import { peopleWithHeldItems, takeHeldItems } from "../store/email-digests.ts";
import { sealMessage } from "./delivery-deps.ts";

/** Entries in one digest e-mail. */
export const DIGEST_MAX = 200;
const PEOPLE_PER_PASS = 100;

export interface DigestDeps {
  orm: MikroORM;
  frontendBase: string;
  messageKey: Buffer;
}

/** One run: answers how many digests it queued. */
export async function queueDigests(deps: DigestDeps, signal: AbortSignal): Promise<number> {
  let queued = 0;
  for (;;) {
    const people = await peopleWithHeldItems(deps.orm.em.fork(), PEOPLE_PER_PASS);
    let progressed = false;
    for (const userId of people) {
      if (signal.aborted) return queued;
      const sent = await deps.orm.em.fork().transactional(async (em) => {
        const items = await takeHeldItems(em, userId, DIGEST_MAX);
        if (items.length === 0) return false; // another replica holds them
        const message = digestEmail(
          items.map((i) => ({
            title: i.title,
            body: i.body,
            url: i.link ? portalUrl(deps.frontendBase, i.link) : null,
            severity: i.severity,
            at: i.createdAt,
          })),
        );
        await enqueueDeliveries(em, [
          {
            channel: "email",
            kind: "digest",
            userId,
            notificationId: null,
            recipient: items[items.length - 1]!.email,
            messageSealed: sealMessage(message, deps.messageKey),
            sourceEventId: randomUUID(),
            expiresAt: null,
          },
        ]);
        return true;
      });
      if (sent) {
        queued += 1;
        progressed = true;
      }
    }
    if (people.length < PEOPLE_PER_PASS || !progressed) return queued;
  }
}
