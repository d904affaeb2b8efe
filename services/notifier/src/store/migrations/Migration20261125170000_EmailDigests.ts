import { Migration } from "@sca/db";

/** The daily e-mail digest: who takes it, and the notification e-mails held for it (docs/notifications.md). */
export class Migration20261125170000_EmailDigests extends Migration {
  override up(): void {
    this.addSql(`create table email_digest_subscribers (
      user_id uuid primary key,
      updated_at timestamptz not null default now())`);
    this.addSql(`create table digest_items (
      id uuid primary key,
      user_id uuid not null,
      email varchar(320) not null,
      kind varchar(64) not null,
      severity varchar(16) null,
      title text not null,
      body text not null,
      link text null,
      source_event_id uuid not null,
      created_at timestamptz not null default now())`);
    this.addSql("alter table digest_items add constraint digest_items_user_event unique (user_id, source_event_id)");
    this.addSql("create index digest_items_user_created on digest_items (user_id, created_at)");
  }
}
