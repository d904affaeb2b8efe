import { Migration } from "@sca/db";

/**
 * Vulnerability findings (docs/findings.md): the vulnerabilities the scanner-runner's verdicts name, the verdicts
 * per package version, the package version of each matched component, the findings per snapshot component and the
 * triage per project component identity, which outlives scans.
 */
export class Migration20261124140000_Findings extends Migration {
  override up(): void {
    this.addSql(`create table vulnerabilities (
      id varchar(128) primary key,
      aliases jsonb not null default '[]'::jsonb,
      summary text not null default '',
      severity varchar(16) not null,
      severity_rank smallint not null,
      cvss_score double precision null,
      cvss_vector text not null default '',
      published_at timestamptz null,
      modified_at timestamptz null,
      "references" jsonb not null default '[]'::jsonb,
      epss_score double precision null,
      epss_percentile double precision null,
      known_exploited boolean not null default false,
      kev_due_date varchar(10) not null default '',
      updated_at timestamptz not null default now())`);
    this.addSql(`create table vulnerability_aliases (
      alias varchar(128) primary key,
      vulnerability_id varchar(128) not null)`);
    this.addSql(`create index vulnerability_aliases_vulnerability on vulnerability_aliases (vulnerability_id)`);
    this.addSql(`create table package_vulnerabilities (
      ecosystem varchar(64) not null,
      name text not null,
      version text not null,
      vulnerability_id varchar(128) not null,
      fixed_versions jsonb not null default '[]'::jsonb,
      primary key (ecosystem, name, version, vulnerability_id))`);
    this.addSql(`create index package_vulnerabilities_vulnerability on package_vulnerabilities (vulnerability_id)`);
    this.addSql(`create table snapshot_packages (
      component_row_id uuid primary key,
      scan_id uuid not null,
      project_id uuid not null,
      ecosystem varchar(64) not null,
      name text not null,
      version text not null)`);
    this.addSql(`create index snapshot_packages_package on snapshot_packages (ecosystem, name, version)`);
    this.addSql(`create index snapshot_packages_scan on snapshot_packages (scan_id)`);
    this.addSql(`create table scan_matches (
      scan_id uuid primary key,
      project_id uuid not null,
      database_version varchar(255) not null,
      finding_count int not null,
      recorded_at timestamptz not null default now())`);
    this.addSql(`create table vulnerability_findings (
      id uuid primary key,
      project_id uuid not null,
      scan_id uuid not null,
      component_row_id uuid not null,
      component_id uuid not null,
      component_key text not null,
      ecosystem varchar(64) not null,
      vulnerability_id varchar(128) not null,
      fixed_versions jsonb not null default '[]'::jsonb,
      detected_at timestamptz not null default now(),
      removed_at timestamptz null)`);
    this.addSql(`alter table vulnerability_findings add constraint vulnerability_findings_component_vulnerability
      unique (component_row_id, vulnerability_id)`);
    this.addSql(`create index vulnerability_findings_scan on vulnerability_findings (scan_id, vulnerability_id)`);
    this.addSql(`create index vulnerability_findings_triage
      on vulnerability_findings (project_id, component_key, vulnerability_id)`);
    this.addSql(`create index vulnerability_findings_vulnerability on vulnerability_findings (vulnerability_id)`);
    this.addSql(`create table finding_triage (
      project_id uuid not null,
      component_key text not null,
      vulnerability_id varchar(128) not null,
      status varchar(32) not null default 'in_triage',
      justification varchar(64) null,
      responses jsonb not null default '[]'::jsonb,
      detail text null,
      version int not null default 1,
      first_detected_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      updated_by varchar(255) null,
      primary key (project_id, component_key, vulnerability_id))`);
  }
}
