import { Migration } from "@sca/db";

/** First-party license detections per scan (docs/scancode.md): the stage's outcome and its file detections. */
export class Migration20261126100000_FileLicenses extends Migration {
  override up(): void {
    this.addSql(`create table file_license_scans (
      scan_id uuid primary key,
      project_id uuid not null,
      status varchar(16) not null,
      message text not null,
      file_count int not null,
      scanned_file_count int not null,
      detection_count int not null,
      truncated boolean not null,
      recorded_at timestamptz not null default now())`);
    this.addSql(`create table file_license_detections (
      scan_id uuid not null,
      ordinal int not null,
      path text not null,
      license text not null,
      score double precision not null,
      start_line int not null,
      end_line int not null,
      matcher varchar(32) not null,
      rule varchar(255) not null,
      primary key (scan_id, ordinal))`);
  }
}
