import { Migration } from "@sca/db";

/**
 * Projects' copy of the scans it heard of (scan events), behind the scan-fed project fields; and, once, the inventory
 * summaries of projects whose snapshots were ingested before ingestion counted them (known_scans itself fills from
 * the events: the consumer group reads the topic from its oldest record).
 */
export class Migration20261124130000_KnownScans extends Migration {
  override up(): void {
    this.addSql(`create table known_scans (
      scan_id uuid primary key,
      project_id uuid not null,
      status varchar(16) null,
      release varchar(255) null,
      scan_created_at timestamptz null,
      completed_at timestamptz null,
      changed_at timestamptz not null,
      deleted_at timestamptz null,
      constraint known_scans_heard_check
        check (deleted_at is not null or (status is not null and scan_created_at is not null)))`);
    this.addSql(
      `create index known_scans_project_created on known_scans (project_id, scan_created_at, scan_id) where deleted_at is null`,
    );
    this.addSql(`update projects p set license_category_summary = coalesce((
        select jsonb_object_agg(k, n) from (
          select coalesce(c.license_category, 'uncategorized') as k, count(*) as n
          from inventory_components c
          where c.scan_id = (select s.scan_id from inventory_snapshots s where s.project_id = p.id
                             order by s.ingested_at desc, s.scan_id desc limit 1)
          group by 1) g), '{}'::jsonb)
      where exists (select 1 from inventory_snapshots s where s.project_id = p.id)`);
  }
}
