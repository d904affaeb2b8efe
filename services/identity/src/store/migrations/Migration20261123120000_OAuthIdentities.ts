import { Migration } from "@sca/db";

/** Identities at OAuth/OIDC providers linked to portal accounts; one account may hold several. */
export class Migration20261123120000_OAuthIdentities extends Migration {
  override up(): void {
    this.addSql(`create table oauth_identities (
      id uuid primary key,
      user_id uuid not null references users(id) on delete cascade,
      provider varchar(16) not null check (provider in ('idp_a', 'idp_b', 'oidc')),
      subject varchar(255) not null,
      email varchar(320) null,
      created_at timestamptz not null default now(),
      last_used_at timestamptz null,
      unique (provider, subject))`);
    this.addSql(`create index oauth_identities_user on oauth_identities (user_id)`);
  }
}
