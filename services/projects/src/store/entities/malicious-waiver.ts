import { defineEntity, p } from "@mikro-orm/postgresql";

/**
 * A malicious-package waiver (docs/enrichment-feeds.md, "Waivers"): a team_admin lets the build gate pass a flagged
 * package version of one project until `expires_at` (at most MALICIOUS_WAIVE_MAX_DAYS away). Never updated: it
 * expires on its own (reads compare `expires_at` with now) and an early end writes `revoked_at`. No foreign key to
 * projects, as known_scans: the project row is never hard-deleted while waivers matter.
 */
export const MaliciousWaiver = defineEntity({
  name: "MaliciousWaiver",
  tableName: "malicious_waivers",
  properties: {
    id: p.uuid().primary(),
    projectId: p.uuid(),
    /** The flagged component's purl, exactly as the inventory holds it (its version included). */
    purl: p.text(),
    reason: p.text(),
    createdByUserId: p.uuid().strictNullable(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    revokedAt: p.datetime().strictNullable(),
  },
  indexes: [{ name: "malicious_waivers_project", properties: ["projectId", "expiresAt"] }],
});
