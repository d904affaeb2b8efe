// Projects' fixtures for the tests of other services (see @sca/testkit fixturesOf): an inventory with known
// vulnerabilities and the scanner-runner's verdicts for it, so the gateway's tests make findings as the runner does.
import type { ServiceFixtures } from "@sca/testkit";
import { findingsArtefact, PURLS, scanMatches } from "./support/findings-fixture.ts";
import { seedPortfolio } from "./support/portfolio-seed.ts";

export const fixtures: ServiceFixtures["projects"] = {
  findingsArtefact,
  scanMatches,
  purls: PURLS,
  portfolio: seedPortfolio,
  write: (orm, sql, params = []) =>
    orm.em
      .fork()
      .transactional((em) =>
        em.getConnection().execute<Record<string, unknown>[]>(sql, params, "all", em.getTransactionContext()),
      ),
};
