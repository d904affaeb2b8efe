// The event ids each consumer group has applied, in the consuming service's own schema. Recording the id in
// the handler's transaction is what makes a redelivered event a no-op. Services that consume list
// CreateProcessedEventsTable in their migrations/index.ts.
import { defineEntity, p, type EntityManager } from "@mikro-orm/postgresql";
import { column, Migration, rawQuery } from "@sca/db";

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
 * Records in the transaction of `em` that `group` applies the events `eventIds` (UUIDs), in one statement; answers
 * those it had not applied before. A concurrent delivery of the same events waits on their keys until the first
 * transaction ends, then sees them; the ids are inserted in order, so two such inserts take their locks in the same
 * order and never deadlock.
 */
export async function recordProcessed(
  em: EntityManager,
  group: string,
  eventIds: readonly string[],
): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  const rows = await rawQuery(
    em,
    `insert into processed_events (consumer_group, event_id)
     select ?, id from unnest(?::uuid[]) as id order by id
     on conflict do nothing
     returning event_id`,
    [group, `{${[...new Set(eventIds)].join(",")}}`],
    { eventId: column.text },
  );
  return new Set(rows.map((row) => row.eventId));
}
