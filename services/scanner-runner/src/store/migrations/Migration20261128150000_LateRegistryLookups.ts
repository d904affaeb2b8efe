import { Migration } from "@sca/db";

/** The registry lookups a succeeded scan left to do after its outcome (late_registry_lookups). */
export class Migration20261128150000_LateRegistryLookups extends Migration {
  override up(): void {
    this.addSql(`create table late_registry_lookups (
      scan_id uuid primary key,
      project_id uuid not null,
      attempt integer not null,
      license_purls jsonb not null,
      currency_purls jsonb not null,
      queued_at timestamptz not null default now(),
      claimed_until timestamptz null)`);
  }
}
