import { Migration } from "@sca/db";

// Uploaded image archives (docker save or OCI layout tars) a container scan names instead of pulling: a third upload
// kind, and the scan's reference to it (set null when the upload is deleted; looked up by the upload sweep).
export class Migration20261125210000_ImageArchives extends Migration {
  override up(): void {
    this.addSql(`alter table scan_uploads drop constraint scan_uploads_kind_check`);
    this.addSql(
      `alter table scan_uploads add constraint scan_uploads_kind_check check (kind in ('sbom', 'source_archive', 'image_archive'))`,
    );
    this.addSql(
      `alter table scans add column image_archive_id uuid null references scan_uploads(id) on delete set null`,
    );
    this.addSql(`create index scans_image_archive on scans (image_archive_id) where image_archive_id is not null`);
  }
}
