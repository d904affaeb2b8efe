import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * A succeeded scan's registry lookups still to do (docs/license-fetch.md, "After the outcome"): the purls whose
 * license or currency had not answered when the scan's outcome was due. Written in the job's transaction with the
 * outcome, claimed by one instance at a time for a lease, deleted once projects recorded what the registries said,
 * so a runner dying mid-way leaves it to another.
 */
export const LateRegistryLookup = defineEntity({
  name: "LateRegistryLookup",
  tableName: "late_registry_lookups",
  properties: {
    scanId: p.uuid().primary(),
    projectId: p.uuid(),
    /** The scan's attempt that queued it. */
    attempt: p.integer(),
    licensePurls: p.json<string[]>(),
    currencyPurls: p.json<string[]>(),
    queuedAt: p.datetime().defaultRaw("now()"),
    /** Set while an instance works it; past it, another may take it. */
    claimedUntil: p.datetime().nullable(),
  },
});

export type LateRegistryLookupRow = InferEntity<typeof LateRegistryLookup>;
