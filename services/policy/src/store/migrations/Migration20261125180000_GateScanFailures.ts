import { Migration } from "@sca/db";

/** The scans the gate failed after they succeeded, one row each (GateFailed is published once per scan). */
export class Migration20261125180000_GateScanFailures extends Migration {
  override up(): void {
    this.addSql(`create table gate_scan_failures (
      scan_id uuid primary key,
      project_id uuid not null,
      reason_codes text not null,
      failed_at timestamptz not null)`);
  }
}
