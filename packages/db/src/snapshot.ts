/**
 * Find options of a store read (docs/adr/0005): the rows answered are snapshots of the database, not entities
 * managed by the caller's identity map, so a read after a `nativeUpdate` in the same transaction sees the change,
 * and nothing read is ever flushed back. The read still runs in the EntityManager's transaction.
 */
export const SNAPSHOT = { disableIdentityMap: true } as const;
