import { Migration } from "@sca/db";

/** Organizations' ticket-tracker logins (docs/tracker-credentials.md). */
export class Migration20261124210000_TrackerCredentials extends Migration {
  override up(): void {
    this.addSql(`create table tracker_credentials (
      id uuid primary key,
      organization_id uuid not null,
      host varchar(255) not null,
      auth_scheme varchar(32) not null default 'tracker_basic',
      username varchar(255) not null,
      api_token_sealed text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint tracker_credentials_auth_scheme_check check (auth_scheme in ('tracker_basic')))`);
    this.addSql(
      `alter table tracker_credentials add constraint tracker_credentials_organization_host unique (organization_id, host)`,
    );
  }
}
