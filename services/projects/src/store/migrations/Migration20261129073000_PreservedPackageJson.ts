import { Migration } from "@sca/db";

/** The artefact key of a source scan's root package.json, kept for the npm remediation dry-run (docs/scm.md). */
export class Migration20261129073000_PreservedPackageJson extends Migration {
  override up(): void {
    this.addSql(`alter table inventory_snapshots add column package_json_key text`);
  }
}
