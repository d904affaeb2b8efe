import { Migration } from "@sca/db";

/** When a failure told by GateFailed was followed by a pass told by GatePassed (late registry licenses). */
export class Migration20261128160000_GateFailuresCleared extends Migration {
  override up(): void {
    this.addSql(`alter table gate_scan_failures add column cleared_at timestamptz null`);
  }
}
