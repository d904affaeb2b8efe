import { Migration } from "@sca/db";

/**
 * Every statement that writes a snapshot's components leaves a row here, in its own transaction (docs/inventory.md,
 * "Component pages kept"). The count of a snapshot's rows is the version of its components a kept list page is
 * valid for: rows are only ever added (until the snapshot goes), so each committed write raises it. Triggers, not
 * the writers' code, so no writer (now or later) can change components without it. Statement-level, so a COPY of
 * 50,000 components or an UPDATE of all of them adds one row, not one per component.
 */
export class Migration20261127100000_InventoryChanges extends Migration {
  override up(): void {
    this.addSql(`create table inventory_changes (id bigserial primary key, scan_id uuid not null)`);
    this.addSql(`create index inventory_changes_scan on inventory_changes (scan_id)`);
    this.addSql(`create function inventory_components_changed() returns trigger language plpgsql as $$
      begin
        insert into inventory_changes (scan_id) select distinct scan_id from changed_components;
        return null;
      end $$`);
    for (const [event, table] of [
      ["insert", "new"],
      ["update", "new"],
      ["delete", "old"],
    ])
      this.addSql(
        `create trigger inventory_components_${event}_changed after ${event} on inventory_components ` +
          `referencing ${table} table as changed_components for each statement ` +
          "execute function inventory_components_changed()",
      );
  }
}
