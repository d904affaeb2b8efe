import { Migration } from "@sca/db";

/**
 * Re-categorising a snapshot rewrites license_category on many rows; with the column indexed every such row also
 * wrote that index (and no update could be HOT). The component list's license_category filter does without it: the
 * snapshot's other (scan_id, …) indexes bound the rows to one snapshot (git log -p docs/benchmarks.md, "License
 * re-categorisation").
 */
export class Migration20261124150000_DropLicenseCategoryIndex extends Migration {
  override up(): void {
    this.addSql("drop index if exists inventory_components_scan_license_category");
  }
}
