// The event ids each consumer group has applied, in the consuming service's own schema. Recording the id in
// the handler's transaction is what makes a redelivered event a no-op. Services that consume list
// CreateProcessedEventsTable in their migrations/index.ts.
import { defineEntity, p, type EntityManager } from "@mikro-orm/postgresql";
import { Migration } from "@sca/db";

export const ProcessedEvent = defineEntity({
  name: "ProcessedEvent",
  tableName: "processed_events",
  properties: {
    consumerGroup: p.text().primary(),
    eventId: p.uuid().primary(),
    processedAt: p.datetime().defaultRaw("now()"),
  },
  // ProcessedEventsPruner deletes by age.
  indexes: [{ name: "processed_events_processed_at", properties: ["processedAt"] }],
});

export class CreateProcessedEventsTable extends Migration {
  up(): void {
    this.addSql(`create table processed_events (
      consumer_group text not null,
      event_id uuid not null,
      processed_at timestamptz not null default now(),
      primary key (consumer_group, event_id)
    )`);
    // ProcessedEventsPruner deletes by age.
    this.addSql("create index processed_events_processed_at on processed_events (processed_at)");
  }
}

/**
 * Records in the transaction of `em` that `group` applies `eventId`; false when it already has. A concurrent
 * delivery of the same event waits on the key until the first transaction ends, then sees it.
 */
export async function recordProcessed(em: EntityManager, group: string, eventId: string): Promise<boolean> {
  const { affectedRows } = await em
    .createQueryBuilder(ProcessedEvent)
    .insert({ consumerGroup: group, eventId })
    .onConflict()
    .ignore()
    .execute<{ affectedRows: number }>("run");
  return affectedRows > 0;
}
