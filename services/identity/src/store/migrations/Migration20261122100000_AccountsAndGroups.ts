import { Migration } from "@sca/db";

/** Organizations, the group hierarchy, users and their memberships. */
export class Migration20261122100000_AccountsAndGroups extends Migration {
  override up(): void {
    this.addSql(`create table organizations (
      id uuid primary key,
      name varchar(255) not null,
      slug varchar(64) not null unique,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now())`);
    this.addSql(`create table groups (
      id uuid primary key,
      organization_id uuid null references organizations(id) on delete restrict,
      parent_group_id uuid null references groups(id) on delete restrict,
      name varchar(255) not null,
      slug varchar(64) not null,
      description text null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (parent_group_id is null or parent_group_id <> id))`);
    this.addSql(
      `create unique index groups_org_slug on groups (coalesce(organization_id, '00000000-0000-0000-0000-000000000000'::uuid), slug)`,
    );
    this.addSql(`create index groups_parent on groups (parent_group_id)`);
    this.addSql(`create table users (
      id uuid primary key,
      email varchar(320) not null unique check (email = lower(email)),
      full_name varchar(255) null,
      password_hash varchar(255) null,
      is_active boolean not null default true,
      is_superuser boolean not null default false,
      is_service_account boolean not null default false,
      mfa_enabled boolean not null default false,
      last_login_at timestamptz null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now())`);
    this.addSql(`create table memberships (
      id uuid primary key,
      user_id uuid not null references users(id) on delete cascade,
      group_id uuid not null references groups(id) on delete cascade,
      role varchar(32) not null check (role in ('group_admin', 'team_admin', 'developer', 'viewer')),
      created_at timestamptz not null default now(),
      unique (user_id, group_id))`);
    this.addSql(`create index memberships_group on memberships (group_id)`);
  }
}
