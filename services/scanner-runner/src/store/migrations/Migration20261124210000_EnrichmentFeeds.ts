import { Migration } from "@sca/db";

/** The enrichment feeds: their status (feed_status) and data (kev_entries, epss_scores, eol_products, malicious_packages). */
export class Migration20261124210000_EnrichmentFeeds extends Migration {
  override up(): void {
    this.addSql(`create table feed_status (
      feed varchar(16) primary key,
      last_attempt_at timestamptz null,
      last_result varchar(16) not null default 'never',
      last_synced_at timestamptz null,
      next_refresh_at timestamptz null,
      duration_ms int null,
      skipped_reason text not null default '',
      feed_host varchar(255) not null default '',
      snapshot_date varchar(10) null,
      snapshot_origin varchar(16) null,
      counts jsonb not null default '{}'::jsonb,
      claimed_until timestamptz null,
      updated_at timestamptz not null default now())`);
    this.addSql(`create table kev_entries (
      cve_id varchar(32) primary key,
      vendor_project text not null,
      product text not null,
      vulnerability_name text not null,
      date_added varchar(10) not null,
      due_date varchar(10) not null,
      known_ransomware_campaign_use varchar(16) not null)`);
    this.addSql(`create table epss_scores (
      cve_id varchar(32) primary key,
      score double precision not null,
      percentile double precision not null)`);
    this.addSql(`create table eol_products (
      product varchar(64) primary key,
      releases jsonb not null,
      identifiers jsonb not null default '[]'::jsonb)`);
    this.addSql(`create table malicious_packages (
      mal_id varchar(64) not null,
      ecosystem varchar(64) not null,
      name text not null,
      normalised_name text not null,
      versions jsonb not null default '[]'::jsonb,
      ranges jsonb not null default '[]'::jsonb,
      source text not null,
      withdrawn boolean not null default false,
      primary key (mal_id, ecosystem, name))`);
    this.addSql(`create index malicious_packages_lookup on malicious_packages (ecosystem, normalised_name)`);
  }
}
