import { Migration } from "@sca/db";

/** Crash reports of the web UI (docs/operations.md). */
export class Migration20261128160000_CrashReports extends Migration {
  override up(): void {
    this.addSql(`create table crash_reports (
      id uuid primary key,
      received_at timestamptz not null,
      request_id text not null,
      user_id text not null,
      user_email text not null,
      client_ip text not null,
      user_agent text not null,
      message text not null,
      url text not null,
      stack text not null,
      component_stack text not null)`);
    this.addSql(`create index crash_reports_received_at on crash_reports (received_at)`);
  }
}
