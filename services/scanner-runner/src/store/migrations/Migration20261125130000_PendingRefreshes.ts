import { Migration } from "@sca/db";

/**
 * The durable "to do" of a refresh (docs/vulnerability-database.md, "Re-matching after a refresh"): the package
 * names whose advisories an import changed, written in the import's transaction and removed once their held
 * versions were re-matched; and the enrichment feeds whose refresh still has to reach the findings.
 */
export class Migration20261125130000_PendingRefreshes extends Migration {
  override up(): void {
    this.addSql(`create table vulndb_rematch_packages (
      ecosystem varchar(100) not null,
      name varchar(500) not null,
      queued_at timestamptz not null default now(),
      primary key (ecosystem, name))`);
    this.addSql(`create table vulndb_pending_enrichment_updates (
      feed varchar(32) primary key,
      queued_at timestamptz not null default now())`);
  }
}
