// ScanStateChanged (the scan-orchestrator's, on sca.domain.events) raises scan.failed and scan.succeeded: an in-app
// notification for each recipient who keeps that channel, an e-mail delivery for each who keeps e-mail. Both are
// written with the event's record (idempotent consumer) and are unique per event and person, so a redelivered
// event adds nothing. Recipients come from identity; while it is unreachable the consumer retries the event.
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import { ScanStateChangedSchema, type ScanStateChanged } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { notificationEmail, portalUrl } from "../domain/email-messages.ts";
import { wants } from "../domain/preferences.ts";
import { SCAN_OUTCOME_ROLES, scanOutcomeNotification } from "../domain/scan-outcomes.ts";
import { enqueueDeliveries } from "../store/deliveries.ts";
import { insertNotifications } from "../store/notifications.ts";
import { choicesOf } from "../store/preferences.ts";
import { sealMessage, type RaiseDeps } from "./delivery-deps.ts";

export const SCAN_OUTCOMES_GROUP = "notifier.scan-outcomes";
export const scanStateEvents = topicContract(TOPICS.domainEvents, ScanStateChangedSchema);

export function scanOutcomeHandler(deps: RaiseDeps) {
  return async (em: EntityManager, event: ScanStateChanged, meta: EventMeta): Promise<void> => {
    const content = scanOutcomeNotification({
      scanId: event.scanId,
      projectId: event.projectId,
      teamId: event.teamId,
      kind: event.kind,
      status: event.status,
      previousStatus: event.previousStatus,
      ref: event.ref,
      release: event.release ?? null,
      requestedByUserId: event.requestedByUserId ?? null,
      errorMessage: event.errorMessage ?? null,
      attempt: event.attempt,
    });
    if (!content) return;
    const people = await deps.recipients.of(
      event.teamId,
      SCAN_OUTCOME_ROLES[content.kind] ?? [],
      event.requestedByUserId ? [event.requestedByUserId] : [],
    );
    if (people.length === 0) return;
    const choices = await choicesOf(
      em,
      people.map((p) => p.userId),
    );
    const inApp = people.filter((p) => wants(choices.get(p.userId) ?? [], content.kind, "in_app"));
    const ids = await insertNotifications(
      em,
      inApp.map((p) => ({
        id: randomUUID(),
        userId: p.userId,
        kind: content.kind,
        severity: content.severity,
        title: content.title,
        body: content.body,
        link: content.link,
        organizationId: null,
        teamId: event.teamId || null,
        projectId: event.projectId || null,
        scanId: event.scanId || null,
        sourceEventId: meta.eventId,
      })),
    );
    if (!deps.emailEnabled) return;
    const byEmail = people.filter((p) => wants(choices.get(p.userId) ?? [], content.kind, "email"));
    if (byEmail.length === 0) return;
    const message = notificationEmail({
      title: content.title,
      body: content.body,
      url: portalUrl(deps.frontendBase, content.link),
    });
    const messageSealed = sealMessage(message, deps.messageKey);
    await enqueueDeliveries(
      em,
      byEmail.map((p) => ({
        channel: "email",
        kind: content.kind,
        userId: p.userId,
        notificationId: ids.get(p.userId) ?? null,
        recipient: p.email,
        messageSealed,
        sourceEventId: meta.eventId,
        expiresAt: null,
      })),
    );
  };
}
