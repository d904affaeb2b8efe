import { Migration } from "@sca/db";

/** Keyless signatures (docs/signing.md, "Keyless"): the certificates, the identity they bind and its issuer. */
export class Migration20261129060000_KeylessSignatures extends Migration {
  override up(): void {
    this.addSql(`alter table sbom_signatures
      add column certificate text,
      add column attestation_certificate text,
      add column certificate_identity text,
      add column certificate_issuer text`);
  }
}
