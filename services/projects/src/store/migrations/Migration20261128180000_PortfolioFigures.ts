import { Migration } from "@sca/db";

/**
 * The dashboards' kept rows (docs/dashboards.md): project_figures, one row per project counted from its newest
 * snapshot whenever that project's findings or components change, with the count of finding writes it was counted
 * at (so the daily job recounts only projects written since); finding_fixes, when each finding of a project stopped
 * being open (mean time to remediate); daily_metrics, append-only, one row per project, team and organization and
 * day, never rewritten (trends). The dashboards read these, never every finding (Dependency-Track's lesson).
 */
export class Migration20261128180000_PortfolioFigures extends Migration {
  override up(): void {
    const counts = `critical int not null default 0,
      high int not null default 0,
      medium int not null default 0,
      low int not null default 0,
      unknown int not null default 0,
      known_exploited int not null default 0,
      license_allowed int not null default 0,
      license_conditional int not null default 0,
      license_forbidden int not null default 0,
      license_uncategorized int not null default 0,
      malicious int not null default 0,
      open_findings int not null default 0,
      fixed_findings int not null default 0`;
    this.addSql(`create table project_figures (
      project_id uuid primary key,
      scan_id uuid null,
      scanned_at timestamptz null,
      risk_score int not null default 0,
      gate_blocked boolean not null default false,
      kev_oldest_due_date varchar(10) not null default '',
      remediation_days_total double precision not null default 0,
      ${counts},
      finding_writes int not null default 0,
      counted_at timestamptz not null default now())`);
    this.addSql(`create table finding_fixes (
      project_id uuid not null,
      component_key text not null,
      vulnerability_id varchar(128) not null,
      first_detected_at timestamptz not null,
      fixed_at timestamptz not null,
      primary key (project_id, component_key, vulnerability_id))`);
    this.addSql(`create table daily_metrics (
      scope varchar(16) not null check (scope in ('project', 'team', 'organization')),
      scope_id uuid not null,
      day date not null,
      team_id uuid null,
      organization_id uuid null,
      project_count int not null default 0,
      gate_blocked int not null default 0,
      risk_score int not null default 0,
      mean_days_to_remediate double precision null,
      ${counts},
      recorded_at timestamptz not null default now(),
      primary key (scope, scope_id, day))`);
    this.addSql(`create index daily_metrics_team_day on daily_metrics (team_id, day) where scope = 'team'`);
    // The overview's recent scans walk the portfolio's newest scans first.
    this.addSql(
      `create index known_scans_created on known_scans (scan_created_at desc, scan_id) where deleted_at is null`,
    );
  }
}
