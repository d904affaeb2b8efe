import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * A queue in breach of its backlog threshold (docs/notifications.md, "Queue backlog"): the row exists from the
 * sweep that found the breach to the one that found it over, so each breach alerts once. `alertId` is the id of
 * the alert it raised (the notifications' and deliveries' source event).
 */
export const QueueBacklogBreach = defineEntity({
  name: "QueueBacklogBreach",
  tableName: "queue_backlog_breaches",
  properties: {
    queue: p.string().length(16).primary(),
    alertId: p.uuid(),
    waiting: p.bigint("number"),
    threshold: p.integer(),
    since: p.datetime().defaultRaw("now()"),
  },
});

export type QueueBacklogBreachRow = InferEntity<typeof QueueBacklogBreach>;
