import { Migration } from "@sca/db";

/**
 * Scans and the uploads they name (docs/scans.md). Project and team ids are kept without foreign keys: they live
 * in other services. Every index serves a list filter, the team cap, the supersede rule or a sweep.
 */
export class Migration20261124100000_Scans extends Migration {
  override up(): void {
    this.addSql(`create table scan_uploads (
      id uuid primary key,
      project_id uuid not null,
      team_id uuid not null,
      kind varchar(16) not null check (kind in ('sbom', 'source_archive')),
      artefact_key varchar(512) not null unique,
      size_bytes bigint not null check (size_bytes >= 0),
      sha256 char(64) not null,
      media_type varchar(255) not null,
      file_name varchar(255) not null,
      uploaded_by_user_id uuid null,
      uploaded_by_api_key_id uuid null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null)`);
    this.addSql(`create index scan_uploads_project on scan_uploads (project_id)`);
    this.addSql(`create index scan_uploads_expires on scan_uploads (expires_at)`);

    this.addSql(`create table scans (
      id uuid primary key,
      project_id uuid not null,
      team_id uuid not null,
      project_name varchar(255) not null,
      project_slug varchar(64) not null,
      kind varchar(16) not null check (kind in ('source', 'container', 'sbom')),
      status varchar(16) not null check (status in ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
      trigger varchar(16) not null check (trigger in ('manual', 'webhook', 'schedule')),
      ref varchar(512) not null default '',
      normalized_ref varchar(600) not null default '',
      release varchar(100) null,
      metadata jsonb not null,
      current_step varchar(64) not null default '',
      progress_percent int not null default 0 check (progress_percent >= 0 and progress_percent <= 100),
      attempt int not null default 1 check (attempt >= 1),
      requested_by_user_id uuid null,
      requested_by_api_key_id uuid null,
      sbom_upload_id uuid null references scan_uploads(id) on delete set null,
      source_archive_id uuid null references scan_uploads(id) on delete set null,
      error_message text null,
      lease_expires_at timestamptz null,
      created_at timestamptz not null default now(),
      started_at timestamptz null,
      completed_at timestamptz null,
      superseded_at timestamptz null,
      updated_at timestamptz not null default now(),
      check ((status = 'running') = (lease_expires_at is not null)))`);
    this.addSql(`create index scans_project_created on scans (project_id, created_at, id)`);
    this.addSql(`create index scans_team_created on scans (team_id, created_at, id)`);
    this.addSql(`create index scans_created on scans (created_at, id)`);
    this.addSql(`create index scans_status_created on scans (status, created_at)`);
    this.addSql(`create index scans_kind_created on scans (kind, created_at)`);
    this.addSql(`create index scans_team_active on scans (team_id) where status in ('queued', 'running')`);
    this.addSql(
      `create index scans_project_ref_active on scans (project_id, kind, normalized_ref) where status in ('queued', 'running')`,
    );
    this.addSql(
      `create index scans_project_ref_succeeded on scans (project_id, normalized_ref, created_at) where status = 'succeeded'`,
    );
    this.addSql(`create index scans_project_release on scans (project_id, release) where release is not null`);
    this.addSql(`create index scans_team_completed on scans (team_id, completed_at) where status = 'succeeded'`);
    this.addSql(`create index scans_lease on scans (lease_expires_at) where status = 'running'`);
    this.addSql(`create index scans_superseded on scans (superseded_at) where superseded_at is not null`);
  }
}
