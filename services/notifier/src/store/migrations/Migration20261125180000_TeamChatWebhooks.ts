import { Migration } from "@sca/db";

/** A team's own chat webhook URLs, sealed (one row per team). */
export class Migration20261125180000_TeamChatWebhooks extends Migration {
  override up(): void {
    this.addSql(`create table team_chat_webhooks (
      team_id uuid primary key,
      organization_id uuid null,
      slack_url_sealed text null,
      teams_url_sealed text null,
      updated_by_user_id uuid not null,
      updated_at timestamptz not null)`);
  }
}
