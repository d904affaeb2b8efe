import { Migration } from "@sca/db";

/** License policies: one per team, one default per organization. Teams and organizations live in identity. */
export class Migration20261124140000_LicensePolicies extends Migration {
  override up(): void {
    this.addSql(`create table license_policies (
      id uuid primary key,
      organization_id uuid null,
      team_id uuid null,
      name varchar(255) null,
      category_overrides jsonb not null default '{}'::jsonb,
      license_exceptions jsonb not null default '[]'::jsonb,
      unknown_license_category varchar(16) not null default 'conditional'
        check (unknown_license_category in ('allowed', 'conditional', 'forbidden')),
      compound_operator_strategy jsonb not null,
      enabled boolean not null default true,
      version int not null default 1,
      created_by_user_id uuid null,
      updated_by_user_id uuid null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (team_id is not null or organization_id is not null))`);
    this.addSql(`create unique index license_policies_team on license_policies (team_id) where team_id is not null`);
    this.addSql(
      `create unique index license_policies_organization_default on license_policies (organization_id) where team_id is null`,
    );
  }
}
