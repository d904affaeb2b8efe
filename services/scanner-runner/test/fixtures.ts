// The scanner-runner's fixtures for the tests of other services (see @sca/testkit fixturesOf): the inventory artefact
// it writes for an SBOM, made by the same reader and encoder its jobs use, so projects' tests ingest real documents
// without importing scanner-runner code.
import { setTimeout as delay } from "node:timers/promises";
import type { ServiceFixtures } from "@sca/testkit";
import { encodeInventoryArtefact } from "../src/domain/inventory-artefact.ts";
import { readSbom } from "../src/domain/sbom/read-sbom.ts";

export const fixtures: ServiceFixtures["scanner-runner"] = {
  inventoryArtefactOf: (sbom, opts = {}) =>
    encodeInventoryArtefact(readSbom(sbom), { scopeFilter: opts.scopeFilter ?? true }).bytes,
  async startUpSettled(orm, timeoutMs = 60_000) {
    // The start-up work that reaches projects on its own: the advisory import's re-match and the KEV and EPSS
    // snapshot loads pushed to findings. Both queues are filled in the transaction that stores the data.
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await orm.em.getConnection().execute<{ imported: boolean; loaded: string; pending: string }[]>(
        `select exists (select 1 from vulndb_imports where last_succeeded_at is not null) as imported,
                (select count(*) from feed_status where feed in ('kev', 'epss') and snapshot_date is not null) as loaded,
                (select count(*) from vulndb_rematch_packages)
                  + (select count(*) from vulndb_pending_enrichment_updates) as pending`,
      );
      if (row!.imported && Number(row!.loaded) === 2 && Number(row!.pending) === 0) return;
      if (Date.now() > deadline)
        throw new Error(`the scanner-runner's start-up work did not settle: ${JSON.stringify(row)}`);
      await delay(100);
    }
  },
};
