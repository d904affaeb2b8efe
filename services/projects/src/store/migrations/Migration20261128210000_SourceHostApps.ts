import { Migration } from "@sca/db";

/** Source-host app credentials, their installations and remediation pull requests (docs/scm.md). */
export class Migration20261128210000_SourceHostApps extends Migration {
  override up(): void {
    this.addSql(`create table scm_app_credentials (
      id uuid primary key,
      team_id uuid not null,
      app_id varchar(64) not null,
      app_slug varchar(255) null,
      private_key_sealed text not null,
      webhook_secret_sealed text null,
      created_by_user_id uuid null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      revoked_at timestamptz null)`);
    this.addSql(`create index scm_app_credentials_team on scm_app_credentials (team_id, created_at)`);
    this.addSql(`create table scm_app_installations (
      app_credential_id uuid not null,
      installation_id varchar(64) not null,
      account_login varchar(255) null,
      project_id uuid null,
      repository_full_name varchar(255) null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (app_credential_id, installation_id))`);
    this.addSql(`create index scm_app_installations_project on scm_app_installations (project_id)`);
    this.addSql(`create table remediation_pull_requests (
      id uuid primary key,
      project_id uuid not null,
      ecosystem varchar(16) not null,
      repository_full_name varchar(255) not null,
      head_branch varchar(255) not null,
      base_branch varchar(255) not null,
      pr_number int null,
      pr_url varchar(2048) null,
      pr_state varchar(16) null,
      status varchar(16) not null,
      package_changes jsonb not null,
      fingerprint varchar(64) not null,
      failure_status int null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      constraint remediation_pull_requests_status_check
        check (status in ('creating', 'open', 'failed', 'superseded')))`);
    this.addSql(`create index remediation_pull_requests_project on remediation_pull_requests (project_id, created_at)`);
    // One live attempt per set of bumps: a second request finds it rather than opening a second branch.
    this.addSql(
      "create unique index remediation_pull_requests_live on remediation_pull_requests (project_id, fingerprint) " +
        "where status in ('creating', 'open')",
    );
  }
}
