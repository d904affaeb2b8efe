// A source scan's root package.json, kept by the scanner-runner in the artefact store beside the inventory and named
// on the snapshot (package_json_key): the npm remediation dry-run's manifest when none is sent (docs/scm.md).
import { QueryOrder, type EntityManager } from "@mikro-orm/postgresql";
import { artefactBytes, type ArtefactStore } from "@sca/artefacts";
import { SNAPSHOT } from "@sca/db";
import { InventorySnapshot } from "./entities/inventory.ts";

/** The scanner-runner keeps none larger; a larger artefact is not read. */
const PACKAGE_JSON_MAX_BYTES = 1024 ** 2;

/** The package.json of the project's newest snapshot that kept one, as text; null when none is there to read. */
export async function preservedPackageJson(
  em: EntityManager,
  artefacts: ArtefactStore,
  projectId: string,
): Promise<{ scanId: string; manifest: string } | null> {
  const row = await em.findOne(
    InventorySnapshot,
    { projectId, packageJsonKey: { $ne: null } },
    {
      ...SNAPSHOT,
      fields: ["scanId", "packageJsonKey"],
      orderBy: { ingestedAt: QueryOrder.DESC, scanId: QueryOrder.DESC },
    },
  );
  if (!row?.packageJsonKey) return null;
  const bytes = await artefactBytes(artefacts, row.packageJsonKey, PACKAGE_JSON_MAX_BYTES);
  if (!bytes) return null;
  return { scanId: row.scanId, manifest: bytes.toString("utf8") };
}
