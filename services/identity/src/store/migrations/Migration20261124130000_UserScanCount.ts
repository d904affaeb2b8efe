import { Migration } from "@sca/db";

/** A person's scan_count, fed by the scan-orchestrator's ScanStateChanged events. */
export class Migration20261124130000_UserScanCount extends Migration {
  override up(): void {
    this.addSql(`alter table users add column scan_count int not null default 0`);
  }
}
