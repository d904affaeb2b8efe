import { Migration } from "@sca/db";

/**
 * The gate outcome of each project judged by its team's policy (docs/dashboards.md, "Gate outcomes"): the figures
 * keep what the EPSS check needs (the highest score of the open findings, how many have one) and the outcome policy
 * judged last; the daily rows count their projects by outcome. Null in the rows written before: not judged.
 */
export class Migration20261129030000_JudgedGateOutcomes extends Migration {
  override up(): void {
    this.addSql(`alter table project_figures add column epss_max double precision null,
      add column epss_scored int not null default 0, add column gate_outcome varchar(16) null`);
    this.addSql(`alter table daily_metrics add column gate_passed int null, add column gate_failed int null`);
  }
}
