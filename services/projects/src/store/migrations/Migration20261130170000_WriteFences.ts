import { Migration } from "@sca/db";
import { FENCED_TABLES, fenceFunctionSql, fenceTriggers, type FencedTable } from "../write-fences.ts";

/**
 * The projects a transaction's statements touch on the tables a component list page derives from, for the commit
 * guard that fences them in Redis (ADR 12, store/write-fences.ts). Statement-level, as inventory_changes' triggers.
 */
export class Migration20261130170000_WriteFences extends Migration {
  override up(): void {
    for (const table of Object.keys(FENCED_TABLES) as FencedTable[]) {
      this.addSql(fenceFunctionSql(table));
      for (const trigger of fenceTriggers(table)) this.addSql(trigger.expression);
    }
  }
}
