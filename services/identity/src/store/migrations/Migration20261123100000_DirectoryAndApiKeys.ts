import { Migration } from "@sca/db";

/**
 * A first organization for a fresh deployment (teams need one to live in), and API keys.
 * API keys keep their team and project ids without foreign keys: a deleted team revokes its keys, and the
 * rows stay as the record of what was issued. Projects belong to another service.
 */
export class Migration20261123100000_DirectoryAndApiKeys extends Migration {
  override up(): void {
    this.addSql(`insert into organizations (id, name, slug)
      select gen_random_uuid(), 'Default organization', 'default' where not exists (select 1 from organizations)`);
    this.addSql(`create table api_keys (
      id uuid primary key,
      name varchar(100) not null,
      scope varchar(16) not null check (scope in ('org', 'team', 'project')),
      organization_id uuid null references organizations(id) on delete restrict,
      team_id uuid null,
      project_id uuid null,
      permission_breadth varchar(16) not null default 'read_only' check (permission_breadth in ('read_only', 'read_write')),
      key_prefix varchar(32) not null unique,
      key_hash varchar(255) not null,
      hash_format varchar(16) not null default 'hmac_sha256' check (hash_format in ('hmac_sha256', 'bcrypt')),
      created_by_user_id uuid null references users(id) on delete set null,
      created_by_email varchar(320) null,
      service_account_id uuid null references users(id) on delete cascade,
      expires_at timestamptz null,
      last_used_at timestamptz null,
      revoked_at timestamptz null,
      created_at timestamptz not null default now(),
      check ((scope = 'org' and team_id is null and project_id is null)
          or (scope = 'team' and team_id is not null and project_id is null)
          or (scope = 'project' and team_id is not null and project_id is not null)))`);
    this.addSql(`create index api_keys_team on api_keys (team_id) where revoked_at is null`);
    this.addSql(`create index api_keys_created_by on api_keys (created_by_user_id)`);
  }
}
