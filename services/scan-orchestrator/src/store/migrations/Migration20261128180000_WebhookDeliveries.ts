import { Migration } from "@sca/db";

/** The webhook deliveries that started scans, one per delivery and project (docs/scm.md). */
export class Migration20261128180000_WebhookDeliveries extends Migration {
  override up(): void {
    this.addSql(`create table webhook_deliveries (
      provider varchar(16) not null,
      delivery_id varchar(128) not null,
      project_id uuid not null,
      scan_id uuid not null,
      received_at timestamptz not null,
      primary key (provider, delivery_id, project_id))`);
    this.addSql(`create index webhook_deliveries_received on webhook_deliveries (received_at)`);
  }
}
