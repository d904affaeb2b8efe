import { Migration } from "@sca/db";

/** The queues in breach of their backlog threshold, so each breach alerts once (docs/notifications.md). */
export class Migration20261124210100_QueueBacklog extends Migration {
  override up(): void {
    this.addSql(`create table queue_backlog_breaches (
      queue varchar(16) primary key,
      alert_id uuid not null,
      waiting bigint not null,
      threshold int not null,
      since timestamptz not null default now())`);
  }
}
