import { Migration } from "@sca/db";

/** Identity's copy of projects' owning teams, fed by projects' events. */
export class Migration20261124100000_KnownProjects extends Migration {
  override up(): void {
    this.addSql(`create table known_projects (
      id uuid primary key,
      team_id uuid not null,
      organization_id uuid null,
      archived boolean not null default false,
      changed_at timestamptz not null)`);
    this.addSql(`create index known_projects_team on known_projects (team_id) where not archived`);
  }
}
