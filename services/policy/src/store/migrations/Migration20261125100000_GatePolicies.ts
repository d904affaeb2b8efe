import { Migration } from "@sca/db";

/** Gate policies: one per team, one default per organization (docs/gate.md). The threshold's 0..1 is checked by
 * the domain rules (a float check would not read back as written, which the schema test compares). */
export class Migration20261125100000_GatePolicies extends Migration {
  override up(): void {
    this.addSql(`create table gate_policies (
      id uuid primary key,
      organization_id uuid not null,
      team_id uuid null,
      name varchar(255) null,
      approval_required_statuses jsonb null,
      epss_threshold double precision null,
      epss_threshold_set boolean not null default false,
      malicious_blocks boolean null,
      reachable_critical_only boolean null,
      version int not null default 1,
      created_by_user_id uuid null,
      updated_by_user_id uuid null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now())`);
    this.addSql(`create unique index gate_policies_team on gate_policies (team_id) where team_id is not null`);
    this.addSql(
      `create unique index gate_policies_organization_default on gate_policies (organization_id) where team_id is null`,
    );
  }
}
