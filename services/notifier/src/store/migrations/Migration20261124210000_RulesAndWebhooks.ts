import { Migration } from "@sca/db";

/** Routing rules, and the chat and ticket webhooks as further channels of the deliveries (docs/notifications.md). */
export class Migration20261124210000_RulesAndWebhooks extends Migration {
  override up(): void {
    this.addSql(`create table notification_rules (
      id uuid primary key,
      organization_id uuid null,
      team_id uuid null,
      project_id uuid null,
      name varchar(200) not null,
      kinds jsonb not null default '[]'::jsonb,
      min_severity varchar(16) null,
      channels jsonb not null default '[]'::jsonb,
      email_recipients jsonb not null default '[]'::jsonb,
      is_active boolean not null default true,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint notification_rules_owner_check check (organization_id is not null or team_id is not null),
      constraint notification_rules_severity_check check (min_severity in ('info', 'low', 'medium', 'high', 'critical')))`);
    this.addSql(
      `create index notification_rules_organization on notification_rules (organization_id) where team_id is null`,
    );
    this.addSql(`create index notification_rules_team on notification_rules (team_id)`);
    this.addSql(`alter table deliveries drop constraint deliveries_channel_check`);
    this.addSql(
      `alter table deliveries add constraint deliveries_channel_check check (channel in ('email', 'slack', 'teams', 'ticket'))`,
    );
  }
}
