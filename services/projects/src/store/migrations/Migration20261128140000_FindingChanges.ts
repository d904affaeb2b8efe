import { Migration } from "@sca/db";

/**
 * Every statement that changes which findings a snapshot's list holds or how they are ordered leaves a row here, in
 * its own transaction (docs/findings.md, "Finding orders kept"), as inventory_changes does for components (ADR 7):
 * the findings of a snapshot (`scan_id`), the triage of a project (`project_id`), and the vulnerabilities every
 * snapshot shares (neither set). An update of vulnerabilities counts only when a column the list filters or sorts by
 * changed: every RecordScanMatches upserts its vulnerabilities, mostly unchanged, and each such statement would
 * otherwise discard every project's kept orders. Inserted vulnerabilities count through the findings naming them.
 */
export class Migration20261128140000_FindingChanges extends Migration {
  override up(): void {
    this.addSql(`create table finding_changes (id bigserial primary key, scan_id uuid null, project_id uuid null)`);
    this.addSql(`create index finding_changes_scan on finding_changes (scan_id)`);
    this.addSql(`create index finding_changes_project on finding_changes (project_id)`);
    this.addSql(
      `create index finding_changes_everywhere on finding_changes (id) where scan_id is null and project_id is null`,
    );
    this.addSql(`create function vulnerability_findings_changed() returns trigger language plpgsql as $$
      begin
        insert into finding_changes (scan_id) select distinct scan_id from changed_findings;
        return null;
      end $$`);
    this.addSql(`create function finding_triage_changed() returns trigger language plpgsql as $$
      begin
        insert into finding_changes (project_id) select distinct project_id from changed_triage;
        return null;
      end $$`);
    this.addSql(`create function vulnerabilities_deleted() returns trigger language plpgsql as $$
      begin
        if exists (select from gone_vulnerabilities) then insert into finding_changes default values; end if;
        return null;
      end $$`);
    this.addSql(`create function vulnerabilities_updated() returns trigger language plpgsql as $$
      begin
        if exists (
          select from before_update b join after_update a using (id)
           where (a.severity, a.severity_rank, a.cvss_score, a.epss_score, a.published_at, a.known_exploited, a.aliases)
             is distinct from
                 (b.severity, b.severity_rank, b.cvss_score, b.epss_score, b.published_at, b.known_exploited, b.aliases)
        ) then insert into finding_changes default values; end if;
        return null;
      end $$`);
    for (const [table, rows, fn] of [
      ["vulnerability_findings", "changed_findings", "vulnerability_findings_changed"],
      ["finding_triage", "changed_triage", "finding_triage_changed"],
    ])
      for (const [event, transition] of [
        ["insert", "new"],
        ["update", "new"],
        ["delete", "old"],
      ])
        this.addSql(
          `create trigger ${table}_${event}_changed after ${event} on ${table} ` +
            `referencing ${transition} table as ${rows} for each statement execute function ${fn}()`,
        );
    this.addSql(
      "create trigger vulnerabilities_update_changed after update on vulnerabilities " +
        "referencing old table as before_update new table as after_update for each statement " +
        "execute function vulnerabilities_updated()",
    );
    this.addSql(
      "create trigger vulnerabilities_delete_changed after delete on vulnerabilities " +
        "referencing old table as gone_vulnerabilities for each statement execute function vulnerabilities_deleted()",
    );
  }
}
