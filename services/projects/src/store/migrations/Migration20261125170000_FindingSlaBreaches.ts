import { Migration } from "@sca/db";

/**
 * When the daily SLA sweep found a triage's finding past its remediation window (docs/findings.md, "Remediation
 * windows"): set once, so each breach is published once however many sweeps see it.
 */
export class Migration20261125170000_FindingSlaBreaches extends Migration {
  override up(): void {
    this.addSql("alter table finding_triage add column sla_breached_at timestamptz null");
  }
}
