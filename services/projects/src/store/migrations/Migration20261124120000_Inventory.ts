import { Migration } from "@sca/db";

/**
 * The component inventory: one snapshot per succeeded scan, its components (with the indexes of the list's sorts
 * and filters) and its dependency edges. Scans live in the scan-orchestrator: ids without foreign keys.
 */
export class Migration20261124120000_Inventory extends Migration {
  override up(): void {
    this.addSql(`create table inventory_snapshots (
      scan_id uuid primary key,
      project_id uuid not null,
      attempt int not null,
      ref varchar(1024) not null default '',
      release varchar(255) null,
      format varchar(32) not null,
      spec_version varchar(32) not null,
      serial_number varchar(1024) null,
      document_name varchar(1024) null,
      tools jsonb not null default '[]'::jsonb,
      primary_component_name varchar(1024) null,
      primary_component_version varchar(1024) null,
      primary_component_purl text null,
      graph_rooted boolean not null default false,
      component_count int not null,
      edge_count int not null,
      ingested_at timestamptz not null default now())`);
    this.addSql(`create index inventory_snapshots_project_ingested on inventory_snapshots (project_id, ingested_at)`);
    this.addSql(
      `create index inventory_snapshots_project_release on inventory_snapshots (project_id, release, ingested_at)`,
    );

    this.addSql(`create table inventory_components (
      id uuid primary key,
      scan_id uuid not null,
      project_id uuid not null,
      component_id uuid not null,
      key text not null,
      bom_refs jsonb not null default '[]'::jsonb,
      type varchar(64) null,
      group_name text null,
      name text not null,
      version text null,
      purl text null,
      cpe text null,
      hashes jsonb not null default '[]'::jsonb,
      declared_license text null,
      concluded_license text null,
      license text null,
      license_ids jsonb not null default '[]'::jsonb,
      supplier text null,
      author text null,
      description text null,
      direct boolean null,
      depth int null,
      dependency_scope varchar(16) null check (dependency_scope in ('required', 'optional')),
      severity_max varchar(16) null,
      severity_rank smallint not null default 0,
      license_category varchar(16) null,
      currency_state varchar(16) null,
      eol_state varchar(16) null,
      malicious_state varchar(16) null,
      raw_data jsonb not null default '{}'::jsonb,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now())`);
    this.addSql(`alter table inventory_components add constraint inventory_components_scan_key unique (scan_id, key)`);
    const indexes: [string, string][] = [
      ["scan_name", "scan_id, name, version, id"],
      ["scan_license", "scan_id, license, name, id"],
      ["scan_severity", "scan_id, severity_rank, name, id"],
      ["scan_component", "scan_id, component_id"],
      ["scan_direct", "scan_id, direct"],
      ["scan_dependency_scope", "scan_id, dependency_scope"],
      ["scan_license_category", "scan_id, license_category"],
      ["scan_severity_max", "scan_id, severity_max"],
      ["scan_eol_state", "scan_id, eol_state"],
      ["scan_currency_state", "scan_id, currency_state"],
      ["scan_malicious_state", "scan_id, malicious_state"],
    ];
    for (const [name, columns] of indexes)
      this.addSql(`create index inventory_components_${name} on inventory_components (${columns})`);

    this.addSql(`create table inventory_edges (
      id uuid primary key,
      scan_id uuid not null,
      from_component_id uuid null,
      to_component_id uuid not null,
      scope varchar(16) null)`);
    this.addSql(`create index inventory_edges_scan_from on inventory_edges (scan_id, from_component_id)`);
    this.addSql(`create index inventory_edges_scan_to on inventory_edges (scan_id, to_component_id)`);
  }
}
