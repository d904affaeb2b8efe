import { Migration } from "@sca/db";

/** Fulfilments of license obligations, one per project and obligation. Projects live in the projects service. */
export class Migration20261125110000_ObligationFulfilments extends Migration {
  override up(): void {
    this.addSql(`create table obligation_fulfilments (
      id uuid primary key,
      project_id uuid not null,
      obligation_id uuid not null,
      obligation varchar(64) not null,
      license text not null,
      note text null,
      evidence_url text null,
      fulfilled_by_user_id uuid null,
      version int not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now())`);
    this.addSql(
      `alter table obligation_fulfilments add constraint obligation_fulfilments_project_obligation unique (project_id, obligation_id)`,
    );
    this.addSql(
      `create index obligation_fulfilments_project_updated on obligation_fulfilments (project_id, updated_at, id)`,
    );
  }
}
