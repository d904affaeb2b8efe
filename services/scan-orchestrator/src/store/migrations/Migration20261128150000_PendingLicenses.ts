import { Migration } from "@sca/db";

// What a succeeded scan's record says of the registry licenses still being asked when it succeeded
// (docs/license-fetch.md, "After the outcome"): their count and the first 100 purls.
export class Migration20261128150000_PendingLicenses extends Migration {
  override up(): void {
    this.addSql(`alter table scans add column pending_license_count integer not null default 0`);
    this.addSql(`alter table scans add column pending_license_purls jsonb not null default '[]'::jsonb`);
  }
}
