// The runner's view of the local vulnerability database: the matcher built from the stored advisories, rebuilt when
// the database version changes, and the periodic import (every VULNDB_REFRESH_HOURS, from VULNDB_REPOSITORY or the
// vendored snapshot, and at once when that source changed: domain/vulndb/import-due.ts). Every instance checks once
// a minute; the import itself is serialised in PostgreSQL.
import { fileURLToPath } from "node:url";
import type { MikroORM } from "@mikro-orm/postgresql";
import { column, rawQuery } from "@sca/db";
import type { Logger } from "@sca/log";
import { readAdvisory, type Advisory } from "../domain/vulndb/advisory.ts";
import { importDue } from "../domain/vulndb/import-due.ts";
import { AdvisoryIndex } from "../domain/vulndb/matcher.ts";
import { sourceLabel } from "./advisory-source.ts";
import { currentStatus, importAdvisories, type ImportOutcome } from "./import-advisories.ts";

/** The vendored snapshot (data/osv/SOURCES.md), used when VULNDB_REPOSITORY is empty. */
export const VENDORED_SNAPSHOT = fileURLToPath(new URL("../../data/osv", import.meta.url));

const LOAD_BATCH = 2000;
const CHECK_EVERY_MS = 60_000;

/** Reads the stored advisories into a matcher (in id order, a batch at a time). */
export async function loadAdvisoryIndex(orm: MikroORM, now = new Date()): Promise<AdvisoryIndex> {
  const em = orm.em.fork();
  const advisories: Advisory[] = [];
  let after = "";
  for (;;) {
    const rows = await rawQuery(
      em,
      `select id, document from vulndb_advisories where id > ? order by id limit ${LOAD_BATCH}`,
      [after],
      { id: column.text, document: column.json<unknown>() },
    );
    for (const row of rows) advisories.push(readAdvisory(row.document));
    if (rows.length < LOAD_BATCH) break;
    after = rows[rows.length - 1]?.id ?? after;
  }
  return new AdvisoryIndex(advisories, now);
}

export interface AdvisoryDatabaseOptions {
  repository: string;
  refreshHours: number;
  logger: Logger;
}

export class AdvisoryDatabase {
  private current: { version: string; index: AdvisoryIndex } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private readonly stopped = new AbortController();
  private readonly loadedListeners: (() => void)[] = [];

  private readonly orm: MikroORM;
  private readonly options: AdvisoryDatabaseOptions;

  constructor(orm: MikroORM, options: AdvisoryDatabaseOptions) {
    this.orm = orm;
    this.options = options;
  }

  get source(): string {
    return this.options.repository || VENDORED_SNAPSHOT;
  }

  /** The matcher at the current database version (importing first on a fresh install). */
  async index(): Promise<{ version: string; index: AdvisoryIndex }> {
    if (!this.current) await this.check();
    if (!this.current) throw new Error("the vulnerability database is not available");
    return this.current;
  }

  /** The matcher loaded last, without checking for a newer one (for callers holding the import lock). */
  get loaded(): { version: string; index: AdvisoryIndex } | null {
    return this.current;
  }

  /** Calls `listener` each time the matcher of a new database version is loaded (its import's re-match is due). */
  onLoaded(listener: () => void): void {
    this.loadedListeners.push(listener);
  }

  /** Imports when due, then rebuilds the matcher when the stored version moved. */
  check(): Promise<void> {
    this.checking ??= this.checkOnce(false).finally(() => (this.checking = null));
    return this.checking;
  }

  /** Imports now, due or not (a super_admin's request), after any check under way; then as check(). */
  refreshNow(): Promise<void> {
    const after = this.checking?.catch(() => undefined) ?? Promise.resolve();
    const run: Promise<void> = after
      .then(() => this.checkOnce(true))
      .finally(() => {
        if (this.checking === run) this.checking = null;
      });
    this.checking = run;
    return run;
  }

  async importNow(): Promise<ImportOutcome> {
    const outcome = await importAdvisories(this.orm.em.fork(), this.source, { signal: this.stopped.signal });
    this.options.logger.info(
      {
        result: outcome.result,
        advisories: outcome.record.advisoryCount,
        skipped: outcome.record.skippedCount,
        failure: outcome.record.failure,
      },
      "vulnerability database import",
    );
    return outcome;
  }

  private async checkOnce(force: boolean): Promise<void> {
    const status = await currentStatus(this.orm.em.fork());
    let version = status?.databaseVersion ?? null;
    if (force || importDue(status, sourceLabel(this.source), this.options.refreshHours, new Date()))
      version = (await this.importNow()).databaseVersion;
    if (version !== null && version !== this.current?.version) {
      this.current = { version, index: await loadAdvisoryIndex(this.orm) };
      for (const listener of this.loadedListeners) listener();
    }
  }

  start(): void {
    this.timer = setInterval(() => {
      this.check().catch((err: unknown) => this.options.logger.error({ err }, "vulnerability database check failed"));
    }, CHECK_EVERY_MS);
    this.timer.unref();
    void this.check().catch((err: unknown) =>
      this.options.logger.error({ err }, "vulnerability database check failed"),
    );
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.stopped.abort();
    await this.checking?.catch(() => undefined);
  }
}
