import { Migration } from "@sca/db";

/** Projects, with the indexes of the list's filters. Teams and users live in identity: ids without foreign keys. */
export class Migration20261124100000_Projects extends Migration {
  override up(): void {
    this.addSql(`create table projects (
      id uuid primary key,
      team_id uuid not null,
      organization_id uuid null,
      name varchar(255) not null,
      slug varchar(64) not null,
      description text null,
      default_branch varchar(255) null,
      git_url varchar(2048) null,
      visibility varchar(16) not null default 'team' check (visibility in ('team', 'organization')),
      business_unit varchar(255) null,
      declared_license varchar(1024) null,
      distribution_model varchar(16) null check (distribution_model in ('internal', 'saas', 'binary', 'source', 'embedded')),
      ai_usage_context varchar(16) null check (ai_usage_context in ('internal', 'product', 'redistribute', 'outputs-only')),
      owner_contact varchar(255) null,
      git_credential_sealed text null,
      has_git_credential boolean not null default false,
      created_by_user_id uuid null,
      archived_at timestamptz null,
      last_scan_at timestamptz null,
      latest_scan_id uuid null,
      latest_scan_status varchar(16) null,
      scan_count int not null default 0,
      release_count int not null default 0,
      severity_summary jsonb not null default '{}'::jsonb,
      license_category_summary jsonb not null default '{}'::jsonb,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (has_git_credential = (git_credential_sealed is not null)))`);
    this.addSql(`create unique index projects_team_slug on projects (team_id, slug) where archived_at is null`);
    this.addSql(`create index projects_team_name on projects (team_id, name, id)`);
    this.addSql(
      `create index projects_organization_visible on projects (organization_id) where visibility = 'organization'`,
    );
    this.addSql(`create index projects_business_unit on projects (lower(business_unit))`);
    this.addSql(`create index projects_distribution_model on projects (distribution_model)`);
  }
}
