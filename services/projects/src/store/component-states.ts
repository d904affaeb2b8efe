// Writing the enrichment states on a snapshot's components (docs/inventory.md, "Component states"): one set-based
// statement over a JSON array of the purls' states (jsonb_to_recordset), joined to the snapshot's rows by purl.
import type { EntityManager } from "@mikro-orm/postgresql";
import { rawStatement } from "@sca/db";
import type { ComponentStateRow } from "../domain/component-states.ts";

/**
 * Every row of the snapshot carrying a listed purl takes that purl's states (all twelve columns, so a state no
 * longer assessed goes back to null); answers how many rows changed. Rows whose states are already those are not
 * rewritten (a repeat writes nothing).
 */
export async function writeComponentStates(
  em: EntityManager,
  scanId: string,
  states: readonly ComponentStateRow[],
): Promise<number> {
  if (states.length === 0) return 0;
  const rows = states.map((s) => ({
    purl: s.purl,
    eol_state: s.eolState,
    eol_cycle: s.eolCycle,
    eol_date: s.eolDate,
    eol_product: s.eolProduct,
    eol_source: s.eolSource,
    currency_state: s.currencyState,
    currency_latest: s.currencyLatest,
    currency_latest_release_date: s.currencyLatestReleaseDate,
    malicious_state: s.maliciousState,
    malicious_id: s.maliciousId,
    malicious_source: s.maliciousSource,
  }));
  return rawStatement(
    em,
    `update inventory_components c set eol_state = x.eol_state, eol_cycle = x.eol_cycle, eol_date = x.eol_date,
       eol_product = x.eol_product, eol_source = x.eol_source, currency_state = x.currency_state,
       currency_latest = x.currency_latest, currency_latest_release_date = x.currency_latest_release_date,
       malicious_state = x.malicious_state, malicious_id = x.malicious_id, malicious_source = x.malicious_source,
       updated_at = now()
     from jsonb_to_recordset(?::jsonb) as x(purl text, eol_state text, eol_cycle text, eol_date text,
       eol_product text, eol_source text, currency_state text, currency_latest text,
       currency_latest_release_date text, malicious_state text, malicious_id text, malicious_source text)
     where c.scan_id = ? and c.purl = x.purl
       and (c.eol_state, c.eol_cycle, c.eol_date, c.eol_product, c.eol_source, c.currency_state, c.currency_latest,
            c.currency_latest_release_date, c.malicious_state, c.malicious_id, c.malicious_source)
           is distinct from
           (x.eol_state, x.eol_cycle, x.eol_date, x.eol_product, x.eol_source, x.currency_state, x.currency_latest,
            x.currency_latest_release_date, x.malicious_state, x.malicious_id, x.malicious_source)`,
    [JSON.stringify(rows), scanId],
  );
}
