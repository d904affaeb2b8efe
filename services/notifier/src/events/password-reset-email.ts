// PasswordResetRequested (identity's, on sca.domain.events) becomes the reset e-mail: one delivery, sealed, sent by
// the delivery job. The reset URL carries a one-shot token: it is never logged, and rests only sealed.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import { PasswordResetRequestedSchema, type PasswordResetRequested } from "@sca/proto/sca/events/v1/accounts_pb.ts";
import { passwordResetEmail } from "../domain/email-messages.ts";
import { enqueueDeliveries } from "../store/deliveries.ts";
import { sealMessage, type RaiseDeps } from "./delivery-deps.ts";

export const PASSWORD_RESET_GROUP = "notifier.password-reset";
export const passwordResetEvents = topicContract(TOPICS.domainEvents, PasswordResetRequestedSchema);

export function passwordResetHandler(deps: RaiseDeps) {
  return async (em: EntityManager, event: PasswordResetRequested, meta: EventMeta): Promise<void> => {
    // Without SMTP_HOST the channel is skipped (logged once, at start).
    if (!deps.emailEnabled) return;
    const expiresAt = event.expiresAt ? timestampDate(event.expiresAt) : null;
    const message = passwordResetEmail({
      fullName: event.fullName ?? null,
      resetUrl: event.resetUrl,
      expiresAt,
      requestedBy: event.requestedBy,
    });
    await enqueueDeliveries(em, [
      {
        channel: "email",
        kind: "account.password_reset",
        userId: event.userId || null,
        notificationId: null,
        recipient: event.email,
        messageSealed: sealMessage(message, deps.messageKey),
        sourceEventId: meta.eventId,
        expiresAt,
      },
    ]);
  };
}
