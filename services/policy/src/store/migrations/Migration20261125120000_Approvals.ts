import { Migration } from "@sca/db";

/** Approval requests and organization verdicts (docs/approvals.md). Projects, teams and users live elsewhere. */
export class Migration20261125120000_Approvals extends Migration {
  override up(): void {
    this.addSql(`create table approval_requests (
      id uuid primary key,
      project_id uuid not null,
      team_id uuid not null,
      organization_id uuid null,
      project_name varchar(255) not null,
      project_slug varchar(64) not null,
      component_id uuid not null,
      component_name text not null,
      component_purl text null,
      status varchar(16) not null,
      version int not null default 1,
      requested_by_user_id uuid not null,
      requested_at timestamptz not null,
      decided_by_user_id uuid null,
      decided_at timestamptz null,
      decision_note text null,
      updated_at timestamptz not null,
      constraint approval_requests_status_check check (status in ('pending', 'under_review', 'approved', 'rejected')))`);
    this.addSql("create index approval_requests_team_requested_at_index on approval_requests (team_id, requested_at)");
    this.addSql("create index approval_requests_project_id_index on approval_requests (project_id)");
    this.addSql(`create table organization_verdicts (
      id uuid primary key,
      organization_id uuid not null,
      component_id uuid not null,
      justification text not null,
      status varchar(16) not null,
      version int not null default 1,
      requested_by_user_id uuid not null,
      decided_by_user_id uuid null,
      decided_at timestamptz null,
      decision_note text null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      constraint organization_verdicts_status_check check (status in ('under_review', 'approved', 'rejected')),
      constraint organization_verdicts_organization_id_component_id_unique unique (organization_id, component_id))`);
  }
}
