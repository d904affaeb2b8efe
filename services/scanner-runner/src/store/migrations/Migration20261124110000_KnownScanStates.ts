import { Migration } from "@sca/db";

/** What the worker has heard of each scan's state (known_scan_states). */
export class Migration20261124110000_KnownScanStates extends Migration {
  override up(): void {
    this.addSql(`create table known_scan_states (
      scan_id uuid primary key,
      status varchar(16) not null,
      attempt int not null,
      occurred_at timestamptz not null,
      updated_at timestamptz not null default now())`);
  }
}
