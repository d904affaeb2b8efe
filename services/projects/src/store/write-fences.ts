// Projects' write fences (ADR 12): every transaction that changes what a project's component list shows (the
// project's row, its snapshots, their components) fences the project in Redis around its commit, so the gateway may
// answer a page it kept without asking projects and never answer one a commit has outdated. Triggers, not the
// writers' code, name the projects a transaction touched (so no writer can forget), in a transaction-local setting
// the commit guard reads; a write outside a transaction, which no guard would see commit, is refused.
import type { MikroORM } from "@mikro-orm/postgresql";
import { guardCommits } from "@sca/db";
import type { Logger } from "@sca/log";
import type { WriteFences } from "@sca/redis";
import { statementTriggers } from "./entities/statement-triggers.ts";

const SETTING = "sca.fenced_projects";

/** The tables whose rows a component list page derives from, and the column naming the project of a row. */
export const FENCED_TABLES = { projects: "id", inventory_snapshots: "project_id", inventory_components: "project_id" };
export type FencedTable = keyof typeof FENCED_TABLES;

/** The trigger function of a table: adds the projects its statement touched to the transaction's setting. */
export function fenceFunctionSql(table: FencedTable): string {
  const column = FENCED_TABLES[table];
  return `create function ${table}_fenced() returns trigger language plpgsql as $$
    declare touched text := coalesce(current_setting('${SETTING}', true), '');
    begin
      -- Only the first statement of a transaction starts with it: with BEGIN, that is the BEGIN.
      if statement_timestamp() = transaction_timestamp() then
        raise exception 'a write to % outside a transaction: projects fences its commits (ADR 12)', tg_table_name;
      end if;
      perform set_config('${SETTING}', concat_ws(',', nullif(touched, ''),
        (select string_agg(distinct ${column}::text, ',') from fenced_rows
          where position(${column}::text in touched) = 0)), true);
      return null;
    end $$`;
}

/** The table's triggers, as its entity declares them. */
export const fenceTriggers = (table: FencedTable) =>
  statementTriggers(table, "fenced", "fenced_rows", `${table}_fenced`);

/** Fences the projects each of the ORM's transactions touched around its commit. */
export function fenceProjectWrites(orm: MikroORM, fences: WriteFences, logger: Logger): void {
  guardCommits(orm, {
    async beforeCommit(read) {
      const [row] = await read(`select current_setting('${SETTING}', true) as touched`);
      const touched = typeof row?.touched === "string" && row.touched !== "" ? row.touched.split(",") : [];
      if (touched.length === 0) return null;
      const fence = await fences.fence(touched);
      return () =>
        fence.lift().catch((err: unknown) => {
          // Its version was raised before the commit: the fence only keeps copies off until its deadline.
          logger.warn({ err, projects: touched.length }, "a write fence was not lifted; it lifts itself in 5 minutes");
        });
    },
  });
}
