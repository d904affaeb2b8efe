// The one shape of a consumer that raises a notification for a project's team from one domain event (scan outcomes,
// gate failures, SLA breaches, new findings, KEV listings, malicious packages): the event's notification, the team's
// members by role (and anyone the event names) as its default recipients, routed through the team's and its
// organization's rules (raise-notification.ts), in the event's transaction (idempotent consumer: a redelivered event
// adds nothing). Each consumer names only what differs.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { EventMeta } from "@sca/kafka";
import type { NotificationContent } from "../domain/scan-outcomes.ts";
import type { RaiseDeps } from "./delivery-deps.ts";
import { raiseNotification } from "./raise-notification.ts";

/** What every such event carries. */
export interface TeamEvent {
  teamId: string;
  projectId: string;
  scanId: string;
  occurredAt?: Timestamp;
}

export interface TeamNotice<E extends TeamEvent> {
  /** The notification the event raises; null when it raises none. */
  content(event: E): NotificationContent | null;
  /** The team roles the notification reaches by default. */
  roles(content: NotificationContent): readonly string[];
  /** The people the event names, reached besides the roles. */
  named?(event: E): string[];
  /** An event naming no team raises nothing (it comes from before its producer named the team). */
  needsTeam: boolean;
}

/** When the event happened: its own time, or when it was published. */
export function occurredAtOf(event: { occurredAt?: Timestamp }, meta: EventMeta): Date {
  return event.occurredAt ? timestampDate(event.occurredAt) : meta.timestamp;
}

export function teamNotificationHandler<E extends TeamEvent>(deps: RaiseDeps, notice: TeamNotice<E>) {
  return async (em: EntityManager, event: E, meta: EventMeta): Promise<void> => {
    const content = notice.content(event);
    if (!content || (notice.needsTeam && !event.teamId)) return;
    const people = await deps.recipients.of(event.teamId, notice.roles(content), notice.named?.(event) ?? []);
    await raiseNotification(em, deps, {
      content,
      teamId: event.teamId || null,
      projectId: event.projectId || null,
      scanId: event.scanId || null,
      people,
      sourceEventId: meta.eventId,
      occurredAt: occurredAtOf(event, meta),
    });
  };
}
