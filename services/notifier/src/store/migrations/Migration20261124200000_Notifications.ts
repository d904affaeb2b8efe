import { Migration } from "@sca/db";

/** In-app notifications, notification preferences and the outbox of deliveries (docs/notifications.md). */
export class Migration20261124200000_Notifications extends Migration {
  override up(): void {
    this.addSql(`create table notifications (
      id uuid primary key,
      user_id uuid not null,
      kind varchar(64) not null,
      severity varchar(16) null,
      title varchar(500) not null,
      body text not null,
      link varchar(2048) null,
      organization_id uuid null,
      team_id uuid null,
      project_id uuid null,
      scan_id uuid null,
      source_event_id uuid not null,
      created_at timestamptz not null default now(),
      read_at timestamptz null,
      constraint notifications_severity_check check (severity in ('info', 'low', 'medium', 'high', 'critical')))`);
    this.addSql(`alter table notifications add constraint notifications_event_user unique (source_event_id, user_id)`);
    this.addSql(`create index notifications_user_created on notifications (user_id, created_at, id)`);
    this.addSql(`create index notifications_user_unread on notifications (user_id, created_at) where read_at is null`);
    this.addSql(`create table notification_preferences (
      user_id uuid not null,
      kind varchar(64) not null,
      channel varchar(16) not null,
      enabled boolean not null,
      updated_at timestamptz not null default now(),
      primary key (user_id, kind, channel),
      constraint notification_preferences_channel_check check (channel in ('in_app', 'email')))`);
    this.addSql(`create table deliveries (
      id uuid primary key,
      channel varchar(16) not null,
      kind varchar(64) not null,
      user_id uuid null,
      notification_id uuid null,
      recipient varchar(320) not null,
      message_sealed text not null,
      source_event_id uuid not null,
      status varchar(16) not null default 'pending',
      attempts int not null default 0,
      next_attempt_at timestamptz not null default now(),
      expires_at timestamptz null,
      last_error varchar(500) null,
      created_at timestamptz not null default now(),
      sent_at timestamptz null,
      constraint deliveries_status_check check (status in ('pending', 'sent', 'failed')),
      constraint deliveries_channel_check check (channel in ('email')))`);
    this.addSql(
      `alter table deliveries add constraint deliveries_event_recipient unique (source_event_id, channel, recipient)`,
    );
    this.addSql(`create index deliveries_due on deliveries (next_attempt_at) where status = 'pending'`);
  }
}
