// The admin service's messages as the spec's JSON (snake_case, ISO 8601 UTC times, null for what the event left
// empty), each with the zod schema that documents it; the audit filters as query parameters.
import { timestampDate, timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { AuditEntry } from "@sca/proto/sca/admin/v1/audit_pb.ts";

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : "");
const orNull = (s: string) => (s === "" ? null : s);
const text = () => z.string().nullable();

export const auditEntrySchema = z
  .object({
    id: z.uuid().meta({ description: "The id of the audit event the entry records" }),
    seq: z.number().int().min(1).meta({ description: "Position in the deployment's hash chain (1, 2, 3, ...)" }),
    occurred_at: z.iso.datetime().meta({ description: "When the action happened" }),
    recorded_at: z.iso.datetime().meta({ description: "When the audit log appended it" }),
    source: z.string().meta({ description: "The service that reported it" }),
    action: z.string().meta({ description: "Dotted verb, e.g. auth.login.succeeded" }),
    outcome: z.string().meta({ description: "success or failure" }),
    actor_user_id: text(),
    actor_api_key_id: text(),
    actor_email: text(),
    client_ip: text().meta({ description: "The client address the edge saw" }),
    user_agent: text(),
    target_table: text(),
    target_id: text(),
    team_id: text(),
    organization_id: text(),
    request_id: text(),
    details: z.record(z.string(), z.string()),
    prev_hash: z.string().meta({ description: "SHA-256 (hex) of the entry before; 64 zeros for the first" }),
    hash: z.string().meta({ description: "SHA-256 (hex) of prev_hash's bytes and the entry's canonical text" }),
  })
  .meta({ id: "AuditEntry" });

export type AuditEntryJson = z.output<typeof auditEntrySchema>;

export function auditEntryJson(e: AuditEntry): AuditEntryJson {
  return {
    id: e.id,
    seq: Number(e.seq),
    occurred_at: iso(e.occurredAt),
    recorded_at: iso(e.recordedAt),
    source: e.source,
    action: e.action,
    outcome: e.outcome,
    actor_user_id: orNull(e.actorUserId),
    actor_api_key_id: orNull(e.actorApiKeyId),
    actor_email: orNull(e.actorEmail),
    client_ip: orNull(e.clientIp),
    user_agent: orNull(e.userAgent),
    target_table: orNull(e.targetTable),
    target_id: orNull(e.targetId),
    team_id: orNull(e.teamId),
    organization_id: orNull(e.organizationId),
    request_id: orNull(e.requestId),
    details: { ...e.details },
    prev_hash: e.prevHash,
    hash: e.hash,
  };
}

/** The CSV's columns: the entry's fields, details as JSON. */
export const AUDIT_CSV_COLUMNS = Object.keys(auditEntrySchema.shape) as (keyof AuditEntryJson)[];

/** The filters the list, the team list and the CSV share. */
export const auditFilterQuery = z.object({
  actor_user_id: z.uuid().optional().meta({ description: "Entries of this acting user" }),
  target_table: z.string().min(1).max(128).optional().meta({ description: "Exact table of the acted-upon row" }),
  action: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .meta({ description: "Exact action, or a prefix when it ends with `.*` (e.g. `api_key.*`)" }),
  from: z.iso.datetime({ offset: true }).optional().meta({ description: "occurred_at at or after (RFC 3339)" }),
  to: z.iso.datetime({ offset: true }).optional().meta({ description: "occurred_at before (RFC 3339)" }),
  q: z.string().max(200).optional().meta({
    description:
      "Case-insensitive part of the actor's e-mail, the action, the target table or id, the client address, the request id or the source",
  }),
});

export type AuditFilterQuery = z.output<typeof auditFilterQuery>;

const stamp = (s: string | undefined) => (s === undefined ? undefined : timestampFromDate(new Date(s)));

/** The service's AuditFilter for the query. */
export function auditFilterOf(q: AuditFilterQuery) {
  return {
    actorUserId: q.actor_user_id,
    targetTable: q.target_table,
    action: q.action,
    from: stamp(q.from),
    to: stamp(q.to),
    q: q.q,
  };
}
