// A table's statement-level AFTER triggers on insert, update and delete, each with the statement's rows as a
// transition table, declared for the schema diff as the raw DDL they are made with (ADR 5). The write counts
// (inventory_changes, finding_changes: ADR 7) and the write fences (ADR 12) are made this way.

/** `<table>_<event>_<suffix>`, executing `fn()` with the rows as `rows` (the new rows; the old ones of a delete). */
export function statementTriggers(table: string, suffix: string, rows: string, fn: string) {
  return (["insert", "update", "delete"] as const).map((event) => ({
    name: `${table}_${event}_${suffix}`,
    timing: "after" as const,
    events: [event],
    forEach: "statement" as const,
    expression:
      `create trigger ${table}_${event}_${suffix} after ${event} on ${table} ` +
      `referencing ${event === "delete" ? "old" : "new"} table as ${rows} for each statement execute function ${fn}()`,
  }));
}
