import { ScalarType, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import type { EntityManager } from "@mikro-orm/postgresql";
import { eventHeaders } from "./event-headers.ts";
import { OutboxMessage } from "./outbox-table.ts";
import { messageSchema, type TopicContract } from "./topics.ts";
import { uuidv7 } from "./uuidv7.ts";

/**
 * Adds an event to the outbox through `em`, so it is written by the same flush (the same transaction) as the
 * caller's state: both commit, or neither does. Returns the event id. Call the relay's wake() after commit
 * for low latency; it polls anyway.
 */
export function enqueue<Desc extends DescMessage>(
  em: EntityManager,
  contract: TopicContract<Desc>,
  key: string,
  message: MessageShape<Desc>,
): string {
  const row = outboxRow(contract, key, message);
  em.create(OutboxMessage, { ...row, createdAt: new Date(), attempts: 0 });
  enqueuers.add(em);
  return row.id;
}

// The entity managers events were enqueued through, so whoever commits one's transaction can wake the relay.
const enqueuers = new WeakSet<EntityManager>();

/** Whether enqueue() was called with `em`: its commit leaves events for the relay. */
export function enqueuedThrough(em: EntityManager): boolean {
  return enqueuers.has(em);
}

/**
 * The same as enqueue, for a transaction written in SQL (a bulk write holding its own connection): the insert to
 * run in that transaction, so the event commits with the caller's rows.
 */
export function outboxInsert<Desc extends DescMessage>(
  contract: TopicContract<Desc>,
  key: string,
  message: MessageShape<Desc>,
): { sql: string; params: unknown[] } {
  const row = outboxRow(contract, key, message);
  return {
    sql: "insert into outbox (id, topic, key, type, payload, headers) values ($1, $2, $3, $4, $5, $6::jsonb)",
    params: [row.id, row.topic, row.key, row.type, row.payload, JSON.stringify(row.headers)],
  };
}

/** An outbox row's values (the created_at, attempts and publication columns take their defaults). */
export interface OutboxRow {
  id: string;
  topic: string;
  key: string;
  type: string;
  payload: Buffer;
  headers: Record<string, string>;
}

/**
 * The row enqueue() writes, for a store that writes it within a statement of its own (several rows and the state
 * they report in one round trip). Its id is the event id.
 */
export function outboxRow<Desc extends DescMessage>(
  contract: TopicContract<Desc>,
  key: string,
  message: MessageShape<Desc>,
): OutboxRow {
  const typeName = (message as MessageShape<DescMessage>).$typeName;
  const schema = messageSchema(contract, typeName);
  if (!schema) throw new Error(`${typeName} is not a message of topic ${contract.topic}`);
  const { eventId, stamped } = withEventId(schema, message);
  return {
    id: eventId,
    topic: contract.topic,
    key,
    type: typeName,
    payload: Buffer.from(toBinary(schema, stamped)),
    headers: eventHeaders(eventId, typeName),
  };
}

// Event messages with an `event_id` field (proto/sca/events) carry the same id as the header, so whoever
// stores the message keeps the id consumers deduplicate on. A caller may set it beforehand to know it.
function withEventId<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
): { eventId: string; stamped: MessageShape<Desc> } {
  const field = schema.field.eventId;
  if (field?.fieldKind !== "scalar" || field.scalar !== ScalarType.STRING)
    return { eventId: uuidv7(), stamped: message };
  const given: unknown = (message as Record<string, unknown>).eventId;
  const eventId = typeof given === "string" && given !== "" ? given : uuidv7();
  return { eventId, stamped: { ...message, eventId } };
}
