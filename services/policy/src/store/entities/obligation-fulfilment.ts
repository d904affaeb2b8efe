import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * The fulfilment of a project's license obligation (docs/obligations.md): at most one per (project, obligation).
 * Obligations are derived, not stored: obligation_id is their UUIDv5, and the code and license are kept as they were
 * when it was recorded, so a fulfilment outliving its obligation (a newer scan dropped the license) still reads.
 * Projects live in the projects service: the id is kept as given, without a foreign key.
 */
export const ObligationFulfilment = defineEntity({
  name: "ObligationFulfilment",
  tableName: "obligation_fulfilments",
  properties: {
    id: p.uuid().primary(),
    projectId: p.uuid(),
    obligationId: p.uuid(),
    obligation: p.string().length(64),
    license: p.text(),
    note: p.text().strictNullable(),
    evidenceUrl: p.text().strictNullable(),
    fulfilledByUserId: p.uuid().strictNullable(),
    /** The If-Match counter: 1 when recorded, one more on every change. */
    version: p.integer().default(1),
    createdAt: p.datetime().defaultRaw("now()"),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
  uniques: [{ name: "obligation_fulfilments_project_obligation", properties: ["projectId", "obligationId"] }],
  indexes: [
    // The list: a project's fulfilments, newest change first.
    { name: "obligation_fulfilments_project_updated", properties: ["projectId", "updatedAt", "id"] },
  ],
});

export type ObligationFulfilmentRow = InferEntity<typeof ObligationFulfilment>;
