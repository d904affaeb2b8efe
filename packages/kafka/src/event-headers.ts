// The Kafka headers every event carries: its id (what consumers deduplicate on), its protobuf type name
// (what consumers decode with) and, when the event was caused by a request, that request's id.
import type { IHeaders } from "kafkajs";
import { currentRequestId } from "@sca/log";

export const EVENT_ID = "event-id";
export const EVENT_TYPE = "event-type";
export const REQUEST_ID = "request-id";

export function eventHeaders(eventId: string, eventType: string): Record<string, string> {
  const requestId = currentRequestId();
  return { [EVENT_ID]: eventId, [EVENT_TYPE]: eventType, ...(requestId ? { [REQUEST_ID]: requestId } : {}) };
}

/** A header's value as text; kafkajs hands consumers Buffers. */
export function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}
