// Reads and writes of malicious_packages: the malicious-package snapshot.
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { normalisedName as normalisedPackageName } from "@sca/purl-package";
import type { MaliciousRecord } from "../domain/feeds/malicious.ts";
import { MaliciousPackageRecord, type MaliciousPackageRow } from "./entities/enrichment-feeds.ts";

const BATCH = 500;

/** Replaces the whole snapshot, inside the caller's transaction. */
export async function replaceMaliciousPackages(em: EntityManager, records: readonly MaliciousRecord[]): Promise<void> {
  await em.nativeDelete(MaliciousPackageRecord, {});
  const rows = [
    ...new Map(
      records.map((r) => [
        `${r.id}\u0000${r.ecosystem}\u0000${r.name}`,
        {
          malId: r.id,
          ecosystem: r.ecosystem,
          name: r.name,
          normalisedName: normalisedPackageName(r.ecosystem, r.name),
          versions: r.versions,
          ranges: r.ranges,
          source: r.source,
          withdrawn: r.withdrawn,
        },
      ]),
    ).values(),
  ];
  for (let i = 0; i < rows.length; i += BATCH) await em.insertMany(MaliciousPackageRecord, rows.slice(i, i + BATCH));
}

const toRecord = (r: MaliciousPackageRow): MaliciousRecord => ({
  id: r.malId,
  ecosystem: r.ecosystem,
  name: r.name,
  versions: r.versions,
  ranges: r.ranges,
  source: r.source,
  withdrawn: r.withdrawn,
});

/**
 * The records naming any of the packages, keyed by `ecosystem NUL normalised name`: one query per 500 packages
 * (a scan's whole inventory in a few round trips, never one per package).
 */
export async function maliciousRecordsOfPackages(
  em: EntityManager,
  packages: readonly { ecosystem: string; name: string }[],
): Promise<Map<string, MaliciousRecord[]>> {
  const keys = [
    ...new Map(
      packages.map((p) => {
        const normalisedName = normalisedPackageName(p.ecosystem, p.name);
        return [`${p.ecosystem}\u0000${normalisedName}`, { ecosystem: p.ecosystem, normalisedName }];
      }),
    ).values(),
  ];
  const out = new Map<string, MaliciousRecord[]>();
  for (let i = 0; i < keys.length; i += BATCH) {
    const rows = await em.find(MaliciousPackageRecord, { $or: keys.slice(i, i + BATCH) }, SNAPSHOT);
    for (const r of rows) {
      const key = `${r.ecosystem}\u0000${r.normalisedName}`;
      out.set(key, [...(out.get(key) ?? []), toRecord(r)]);
    }
  }
  return out;
}

/** The records naming a package (its name normalised for the ecosystem). */
export async function maliciousRecordsOf(
  em: EntityManager,
  ecosystem: string,
  name: string,
): Promise<MaliciousRecord[]> {
  const rows = await em.find(
    MaliciousPackageRecord,
    { ecosystem, normalisedName: normalisedPackageName(ecosystem, name) },
    SNAPSHOT,
  );
  return rows.map(toRecord);
}
