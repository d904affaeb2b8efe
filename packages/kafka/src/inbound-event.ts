// What a consumed record is to a consumer of a topic contract: one of its events, a message type it does not
// handle (topics such as sca.domain.events carry many), or poison that can never be applied.
import { fromBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import type { EachMessagePayload } from "kafkajs";
import { EVENT_ID, EVENT_TYPE, REQUEST_ID, headerText } from "./event-headers.ts";
import { messageSchema, type TopicContract } from "./topics.ts";
import { isUuid } from "./uuidv7.ts";

export interface EventMeta {
  eventId: string;
  /** The protobuf type name, e.g. "sca.events.v1.AuditEvent". */
  eventType: string;
  /** The request that caused the event, when there was one. */
  requestId: string | undefined;
  key: string | undefined;
  /** The logical topic (the contract's), whatever the deployment's prefix. */
  topic: string;
  partition: number;
  offset: string;
  timestamp: Date;
}

export type InboundEvent<Desc extends DescMessage> =
  | { kind: "event"; message: MessageShape<Desc>; meta: EventMeta }
  | { kind: "other-type"; eventType: string }
  | { kind: "poison"; reason: string };

export function readInboundEvent<Desc extends DescMessage>(
  contract: TopicContract<Desc>,
  record: Pick<EachMessagePayload, "partition" | "message">,
): InboundEvent<Desc> {
  const { headers, value, key, offset, timestamp } = record.message;
  const eventId = headerText(headers, EVENT_ID);
  const eventType = headerText(headers, EVENT_TYPE);
  if (!eventId || !isUuid(eventId)) return { kind: "poison", reason: `no UUID in the ${EVENT_ID} header` };
  if (!eventType) return { kind: "poison", reason: `no ${EVENT_TYPE} header` };
  const schema = messageSchema(contract, eventType);
  if (!schema) return { kind: "other-type", eventType };
  if (!value) return { kind: "poison", reason: "no value" };
  let message: MessageShape<Desc>;
  try {
    message = fromBinary(schema, value);
  } catch (err) {
    return { kind: "poison", reason: `not a ${eventType}: ${(err as Error).message}` };
  }
  const meta: EventMeta = {
    eventId,
    eventType,
    requestId: headerText(headers, REQUEST_ID),
    key: key?.toString(),
    topic: contract.topic,
    partition: record.partition,
    offset,
    timestamp: new Date(Number(timestamp)),
  };
  return { kind: "event", message, meta };
}
