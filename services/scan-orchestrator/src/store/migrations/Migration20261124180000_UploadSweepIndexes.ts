import { Migration } from "@sca/db";

// The upload sweep asks whether any scan names an upload (NOT EXISTS on both columns), and deleting an upload sets
// those columns null: both look scans up by upload id.
export class Migration20261124180000_UploadSweepIndexes extends Migration {
  override up(): void {
    this.addSql(`create index scans_sbom_upload on scans (sbom_upload_id) where sbom_upload_id is not null`);
    this.addSql(`create index scans_source_archive on scans (source_archive_id) where source_archive_id is not null`);
  }
}
