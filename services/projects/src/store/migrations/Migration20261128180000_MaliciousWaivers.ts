import { Migration } from "@sca/db";

/** Malicious-package waivers (docs/enrichment-feeds.md, "Waivers"): read per project, live ones by expiry. */
export class Migration20261128180000_MaliciousWaivers extends Migration {
  override up(): void {
    this.addSql(`create table malicious_waivers (
      id uuid primary key,
      project_id uuid not null,
      purl text not null,
      reason text not null,
      created_by_user_id uuid null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      revoked_at timestamptz null)`);
    this.addSql(`create index malicious_waivers_project on malicious_waivers (project_id, expires_at)`);
  }
}
