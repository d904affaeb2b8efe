// The transactional outbox: events a service wrote in the same transaction as its state, waiting for the
// relay to publish them. The table lives in the owning service's schema; services list CreateOutboxTable
// in their migrations/index.ts and the runtime registers the entity.
import { defineEntity, p } from "@mikro-orm/postgresql";
import { Migration } from "@sca/db";

export const OutboxMessage = defineEntity({
  name: "OutboxMessage",
  tableName: "outbox",
  properties: {
    /** UUIDv7, also the event id: publishing follows its order. */
    id: p.uuid().primary(),
    /** The logical topic (TOPICS.*): the relay publishes to it under the deployment's prefix. */
    topic: p.text(),
    key: p.text(),
    /** The protobuf type name of the payload. */
    type: p.text(),
    payload: p.blob(),
    headers: p.json<Record<string, string>>(),
    createdAt: p.datetime().defaultRaw("now()"),
    publishedAt: p.datetime().nullable(),
    attempts: p.integer().default(0),
    lastError: p.text().nullable(),
  },
  // The relay reads unpublished rows in id order, and per key; the sweep deletes by publication time.
  indexes: [
    { name: "outbox_unpublished", properties: ["id"], where: "published_at is null" },
    { name: "outbox_unpublished_by_key", properties: ["topic", "key", "id"], where: "published_at is null" },
    { name: "outbox_published_at", properties: ["publishedAt"], where: "published_at is not null" },
  ],
});

export class CreateOutboxTable extends Migration {
  up(): void {
    this.addSql(`create table outbox (
      id uuid primary key,
      topic text not null,
      key text not null,
      type text not null,
      payload bytea not null,
      headers jsonb not null,
      created_at timestamptz not null default now(),
      published_at timestamptz,
      attempts integer not null default 0,
      last_error text
    )`);
    // The relay reads unpublished rows in id order, and per key; the sweep deletes by publication time.
    this.addSql("create index outbox_unpublished on outbox (id) where published_at is null");
    this.addSql("create index outbox_unpublished_by_key on outbox (topic, key, id) where published_at is null");
    this.addSql("create index outbox_published_at on outbox (published_at) where published_at is not null");
  }
}
