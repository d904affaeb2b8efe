import { Migration } from "@sca/db";

/**
 * The signature and provenance of each succeeded scan's CycloneDX export, or why it has none (docs/signing.md). Only
 * public material: the private key never reaches the database. Deleted with the snapshot (inventory/ingestion.ts).
 */
export class Migration20261128180000_SbomSignatures extends Migration {
  override up(): void {
    this.addSql(`create table sbom_signatures (
      scan_id uuid primary key,
      project_id uuid not null,
      unsigned_reason varchar(32),
      model varchar(16),
      sbom_sha256 varchar(64),
      sbom_size bigint,
      signature text,
      public_key text,
      sigstore_bundle text,
      attestation text,
      attestation_bundle text,
      recorded_at timestamptz not null default now())`);
  }
}
