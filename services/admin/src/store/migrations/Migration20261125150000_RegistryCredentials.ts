import { Migration } from "@sca/db";

/** Organizations' container-registry logins (docs/container-scans.md). */
export class Migration20261125150000_RegistryCredentials extends Migration {
  override up(): void {
    this.addSql(`create table registry_credentials (
      id uuid primary key,
      organization_id uuid not null,
      registry_host varchar(255) not null,
      username varchar(255) not null,
      password_sealed text not null,
      allowed boolean not null default true,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now())`);
    this.addSql(
      `alter table registry_credentials add constraint registry_credentials_organization_host unique (organization_id, registry_host)`,
    );
  }
}
