import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/** How far the log has been shipped to AUDIT_EXPORT_URL: the last position the collector accepted (one row). */
export const AuditExportPosition = defineEntity({
  name: "AuditExportPosition",
  tableName: "audit_export_positions",
  properties: {
    name: p.string().length(32).primary(),
    lastSeq: p.bigint("number"),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
});

export type AuditExportPositionRow = InferEntity<typeof AuditExportPosition>;
