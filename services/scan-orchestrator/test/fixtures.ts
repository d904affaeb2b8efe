// The scan-orchestrator's fixtures for the tests of other services (see @sca/testkit fixturesOf).
import type { ServiceFixtures } from "@sca/testkit";
import { makeScan } from "./support/scan-fixtures.ts";

export const fixtures: ServiceFixtures["scan-orchestrator"] = {
  async scan(orm, opts) {
    return (await makeScan(orm, opts)).id;
  },
};
