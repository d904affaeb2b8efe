// What an audit entry records of a sca.events.v1.AuditEvent, and how a search of the log is read (docs/audit.md).
import type { FieldViolation } from "@sca/problem";
import type { ChainedFields } from "./audit-chain.ts";
import { UUID } from "@sca/ids";

/** An event's fields as the chain covers them, before it has a position and a time in the log. */
export type EntryFields = Omit<ChainedFields, "seq" | "recordedAt">;

/** What the log needs of an event (sca.events.v1.AuditEvent, decoded). */
export interface AuditEventInput {
  eventId: string;
  occurredAt: Date | undefined;
  source: string;
  action: string;
  outcome: string;
  actor?: { userId: string; apiKeyId: string; email: string; ip: string; userAgent: string } | undefined;
  targetTable: string;
  targetId: string;
  teamId: string;
  organizationId: string;
  requestId: string;
  details: Record<string, string>;
}

// PostgreSQL text cannot hold NUL: an event carrying one is recorded without it (and hashed as recorded).
const storable = (text: string) => text.replaceAll("\0", "");

const YEAR_1 = new Date(0).setUTCFullYear(1, 0, 1);
const YEAR_10000 = Date.UTC(10000, 0, 1);

// A time the ISO text of the chain and PostgreSQL both hold (years 1..9999); anything else (a malformed event) would
// otherwise fail its row for ever and block the partition.
function recordableTime(t: Date | undefined): Date | undefined {
  if (!t) return undefined;
  const ms = t.getTime();
  return Number.isFinite(ms) && ms >= YEAR_1 && ms < YEAR_10000 ? t : undefined;
}

/**
 * The entry recording `event`. `eventId` is the id consumers deduplicate on (the record's header); `receivedAt`
 * stands for a missing occurred_at (or one outside the years 1..9999). Times keep millisecond precision, what both the chain and PostgreSQL hold.
 */
export function entryOfEvent(event: AuditEventInput, eventId: string, receivedAt: Date): EntryFields {
  const details: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.details)) details[storable(k)] = storable(v);
  return {
    id: eventId.toLowerCase(),
    occurredAt: new Date((recordableTime(event.occurredAt) ?? receivedAt).getTime()),
    source: storable(event.source),
    action: storable(event.action),
    outcome: storable(event.outcome),
    actorUserId: storable(event.actor?.userId ?? "").toLowerCase(),
    actorApiKeyId: storable(event.actor?.apiKeyId ?? "").toLowerCase(),
    actorEmail: storable(event.actor?.email ?? ""),
    clientIp: storable(event.actor?.ip ?? ""),
    userAgent: storable(event.actor?.userAgent ?? ""),
    targetTable: storable(event.targetTable),
    targetId: storable(event.targetId),
    teamId: storable(event.teamId).toLowerCase(),
    organizationId: storable(event.organizationId).toLowerCase(),
    requestId: storable(event.requestId),
    details,
  };
}

/** A search of the log: every field given narrows. */
export interface AuditQuery {
  actorUserId?: string;
  targetTable?: string;
  /** Exact action. */
  action?: string;
  /** Actions starting with this (the filter `api_key.*` is the prefix `api_key.`). */
  actionPrefix?: string;
  /** occurred_at >= from */
  from?: Date;
  /** occurred_at < to */
  to?: Date;
  /** Case-insensitive part of actor e-mail, action, target table, target id, client address, request id, source. */
  q?: string;
  /** Only entries of this team (the team-scoped search). */
  teamId?: string;
}

/** The filter as the request carries it (sca.admin.v1.AuditFilter, times already read). */
export interface AuditFilterInput {
  actorUserId?: string;
  targetTable?: string;
  action?: string;
  from?: Date;
  to?: Date;
  q?: string;
}

export const isUuid = (s: string): boolean => UUID.test(s);

export const NAME_MAX = 128;
export const Q_MAX = 200;

/** The query, or the violations of the filter (paths are the edge's query parameters). */
export function auditQueryOf(
  f: AuditFilterInput | undefined,
): { ok: true; query: AuditQuery } | { ok: false; violations: FieldViolation[] } {
  const v: FieldViolation[] = [];
  const query: AuditQuery = {};
  if (f?.actorUserId !== undefined) {
    if (isUuid(f.actorUserId)) query.actorUserId = f.actorUserId.toLowerCase();
    else v.push({ path: "query.actor_user_id", message: "must be a UUID" });
  }
  const name = (value: string | undefined, path: string): string | undefined => {
    if (value === undefined || value === "") return undefined;
    if ([...value].length > NAME_MAX) v.push({ path, message: `must be at most ${NAME_MAX} characters` });
    return value;
  };
  query.targetTable = name(f?.targetTable, "query.target_table");
  const action = name(f?.action, "query.action");
  if (action !== undefined) {
    if (action.endsWith(".*")) query.actionPrefix = action.slice(0, -1);
    else query.action = action;
  }
  if (f?.q !== undefined && f.q !== "") {
    if ([...f.q].length > Q_MAX) v.push({ path: "query.q", message: `must be at most ${Q_MAX} characters` });
    else query.q = f.q;
  }
  if (f?.from) query.from = f.from;
  if (f?.to) query.to = f.to;
  if (f?.from && f?.to && f.from.getTime() > f.to.getTime())
    v.push({ path: "query.from", message: "must not be after to" });
  for (const k of Object.keys(query) as (keyof AuditQuery)[]) if (query[k] === undefined) delete query[k];
  return v.length ? { ok: false, violations: v } : { ok: true, query };
}
