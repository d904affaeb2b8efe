// The scanner-runner's fixtures for the tests of other services (see @sca/testkit fixturesOf): the inventory artefact
// it writes for an SBOM, made by the same reader and encoder its jobs use, so projects' tests ingest real documents
// without importing scanner-runner code.
import type { ServiceFixtures } from "@sca/testkit";
import { encodeInventoryArtefact } from "../src/domain/inventory-artefact.ts";
import { readSbom } from "../src/domain/sbom/read-sbom.ts";

export const fixtures: ServiceFixtures["scanner-runner"] = {
  inventoryArtefactOf: (sbom, opts = {}) =>
    encodeInventoryArtefact(readSbom(sbom), { scopeFilter: opts.scopeFilter ?? true }).bytes,
};
