import { Migration } from "@sca/db";

/**
 * The detail of the enrichment states the scanner-runner records per component (docs/inventory.md, "Component
 * states"): the end-of-life cycle, date, product and source, the registry's latest version and its date, the
 * malicious record's id and source. Nullable columns without default: adding them rewrites no row.
 */
export class Migration20261125140000_ComponentStates extends Migration {
  override up(): void {
    this.addSql(`alter table inventory_components
      add column eol_cycle text null,
      add column eol_date varchar(10) null,
      add column eol_product text null,
      add column eol_source text null,
      add column currency_latest text null,
      add column currency_latest_release_date varchar(10) null,
      add column malicious_id text null,
      add column malicious_source text null`);
  }
}
