import { Migration } from "@sca/db";

/** Backup and restore tasks (docs/operations.md). */
export class Migration20261128150000_BackupTasks extends Migration {
  override up(): void {
    this.addSql(`create table backup_tasks (
      id uuid primary key,
      kind varchar(16) not null,
      backup_name varchar(64) not null default '',
      state varchar(16) not null,
      step text not null default '',
      percent int not null default 0,
      error text not null default '',
      requested_by varchar(64) not null default '',
      created_at timestamptz not null default now(),
      started_at timestamptz null,
      finished_at timestamptz null,
      constraint backup_tasks_kind_check check (kind in ('backup', 'restore')),
      constraint backup_tasks_state_check check (state in ('queued', 'running', 'succeeded', 'failed')))`);
    this.addSql(`create index backup_tasks_created_at on backup_tasks (created_at)`);
  }
}
