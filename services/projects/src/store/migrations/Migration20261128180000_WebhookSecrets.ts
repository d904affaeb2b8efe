import { Migration } from "@sca/db";

/** The repository-webhook secret of each project, sealed (docs/scm.md). */
export class Migration20261128180000_WebhookSecrets extends Migration {
  override up(): void {
    this.addSql(`create table project_webhook_secrets (
      project_id uuid primary key,
      provider varchar(16) not null,
      secret_sealed text not null,
      issued_at timestamptz not null,
      constraint project_webhook_secrets_provider_check check (provider in ('scm_a', 'scm_b')))`);
    this.addSql(`create index project_webhook_secrets_provider on project_webhook_secrets (provider)`);
  }
}
