import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/** What the append-only triggers raise (SQLSTATE 42501, insufficient_privilege). */
export const APPEND_ONLY_BODY =
  "raise exception 'audit_entries is append-only: % refused', tg_op using errcode = 'insufficient_privilege';";

/**
 * The audit log: one row per audit event of any service, append-only (a trigger refuses UPDATE, DELETE and
 * TRUNCATE), hash-chained by `seq` (docs/audit.md). Ids of other services' rows are kept as the events carried them
 * (text, empty when absent), without foreign keys.
 */
export const AuditEntry = defineEntity({
  name: "AuditEntry",
  tableName: "audit_entries",
  properties: {
    /** Position in the deployment's chain, 1, 2, 3, ... assigned under the chain lock. */
    seq: p.bigint("number").primary().autoincrement(false),
    /** The event id: a redelivered event is never a second row. */
    id: p.uuid().unique("audit_entries_id_key"),
    occurredAt: p.datetime(),
    recordedAt: p.datetime(),
    source: p.text(),
    action: p.text(),
    outcome: p.text(),
    actorUserId: p.text(),
    actorApiKeyId: p.text(),
    actorEmail: p.text(),
    clientIp: p.text(),
    userAgent: p.text(),
    targetTable: p.text(),
    targetId: p.text(),
    teamId: p.text(),
    organizationId: p.text(),
    requestId: p.text(),
    details: p.json<Record<string, string>>().defaultRaw("'{}'::jsonb"),
    /** SHA-256 (hex) of the entry before; 64 zeros for the first. */
    prevHash: p.string().length(64),
    /** SHA-256 (hex) of prev_hash's bytes and the entry's canonical text. */
    hash: p.string().length(64),
  },
  // The statement-level TRUNCATE trigger of the migration is not listed here: PostgreSQL's information_schema, which
  // the schema diff reads, does not show TRUNCATE triggers.
  triggers: [
    {
      name: "append_only_rows",
      timing: "before",
      events: ["update", "delete"],
      forEach: "row",
      body: APPEND_ONLY_BODY,
    },
  ],
  // The searches: newest first overall, and by each exact filter.
  indexes: [
    { name: "audit_entries_occurred_at", properties: ["occurredAt"] },
    { name: "audit_entries_actor_user", properties: ["actorUserId", "seq"] },
    { name: "audit_entries_target_table", properties: ["targetTable", "seq"] },
    { name: "audit_entries_action", properties: ["action", "seq"] },
    { name: "audit_entries_team", properties: ["teamId", "seq"] },
  ],
});

export type AuditEntryRow = InferEntity<typeof AuditEntry>;
