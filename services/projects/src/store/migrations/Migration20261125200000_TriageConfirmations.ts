import { Migration } from "@sca/db";

/**
 * Statuses a second person confirms (docs/findings.md): a triage's pending change, and projects' copy of the gate
 * policies' approval_required_statuses (fed by policy's GatePolicyChanged), one row per team or organization policy.
 */
export class Migration20261125200000_TriageConfirmations extends Migration {
  override up(): void {
    this.addSql(`alter table finding_triage
      add column pending_status varchar(32) null,
      add column pending_justification varchar(64) null,
      add column pending_responses jsonb null,
      add column pending_detail text null,
      add column pending_by varchar(255) null,
      add column pending_at timestamptz null`);
    this.addSql(`create table approval_required_statuses (
      scope_id uuid not null primary key,
      organization_id uuid not null,
      team_id uuid null,
      statuses jsonb null,
      changed_at timestamptz not null)`);
    this.addSql("create index approval_required_statuses_organization on approval_required_statuses (organization_id)");
  }
}
