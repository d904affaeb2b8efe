import { Migration } from "@sca/db";
import { APPEND_ONLY_BODY } from "../entities/audit-entry.ts";

/**
 * The audit log and its export position. The log is append-only in the database itself: triggers refuse UPDATE and
 * DELETE of any row and TRUNCATE of the table, whoever asks (docs/audit.md).
 */
export class Migration20261124200000_AuditLog extends Migration {
  override up(): void {
    this.addSql(`create table audit_entries (
      seq bigint primary key,
      id uuid not null,
      occurred_at timestamptz not null,
      recorded_at timestamptz not null,
      source text not null,
      action text not null,
      outcome text not null,
      actor_user_id text not null,
      actor_api_key_id text not null,
      actor_email text not null,
      client_ip text not null,
      user_agent text not null,
      target_table text not null,
      target_id text not null,
      team_id text not null,
      organization_id text not null,
      request_id text not null,
      details jsonb not null default '{}'::jsonb,
      prev_hash varchar(64) not null,
      hash varchar(64) not null,
      constraint audit_entries_id_key unique (id))`);
    this.addSql(`create index audit_entries_occurred_at on audit_entries (occurred_at)`);
    this.addSql(`create index audit_entries_actor_user on audit_entries (actor_user_id, seq)`);
    this.addSql(`create index audit_entries_target_table on audit_entries (target_table, seq)`);
    this.addSql(`create index audit_entries_action on audit_entries (action, seq)`);
    this.addSql(`create index audit_entries_team on audit_entries (team_id, seq)`);
    // The function names follow MikroORM's convention ({table}_{trigger}_fn), so the schema diff knows the row
    // trigger the entity declares.
    for (const [trigger, events, each] of [
      ["append_only_rows", "update or delete", "row"],
      ["append_only_table", "truncate", "statement"],
    ] as const) {
      this.addSql(
        `create function audit_entries_${trigger}_fn() returns trigger as $$ begin ${APPEND_ONLY_BODY} end; $$ language plpgsql`,
      );
      this.addSql(
        `create trigger ${trigger} before ${events} on audit_entries for each ${each} execute function audit_entries_${trigger}_fn()`,
      );
    }

    this.addSql(`create table audit_export_positions (
      name varchar(32) primary key,
      last_seq bigint not null,
      updated_at timestamptz not null default now())`);
  }
}
