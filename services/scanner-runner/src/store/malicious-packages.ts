// Reads and writes of malicious_packages: the malicious-package snapshot.
import type { EntityManager } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { normalisedName as normalisedPackageName } from "@sca/purl-package";
import type { MaliciousRecord } from "../domain/feeds/malicious.ts";
import { MaliciousPackageRecord } from "./entities/enrichment-feeds.ts";

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
  return rows.map((r) => ({
    id: r.malId,
    ecosystem: r.ecosystem,
    name: r.name,
    versions: r.versions,
    ranges: r.ranges,
    source: r.source,
    withdrawn: r.withdrawn,
  }));
}
