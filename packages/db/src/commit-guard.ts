// Work a service does around the commit of each of its transactions (projects' write fences, ADR 12): before the
// COMMIT, on the transaction's own connection, and after it commits or rolls back. One guard per ORM; it sees every
// top-level transaction of the ORM's EntityManagers (em.transactional, a flush) and of bulkTransaction, not their
// savepoints.
import type { EventSubscriber, TransactionEventArgs } from "@mikro-orm/core";
import type { MikroORM } from "@mikro-orm/postgresql";

/** Reads from inside the transaction about to commit. */
export type TransactionRead = (sql: string) => Promise<Record<string, unknown>[]>;

export interface CommitGuard {
  /**
   * Before the COMMIT; answers what to run once the transaction has committed or rolled back (null: nothing), which
   * must not throw (the transaction's outcome stands by then). A throw here rolls the transaction back.
   */
  beforeCommit(read: TransactionRead): Promise<(() => Promise<void>) | null>;
}

const guards = new WeakMap<MikroORM, CommitGuard>();

/** The guard of the ORM's transactions, if it has one (bulkTransaction asks). */
export const commitGuardOf = (orm: MikroORM): CommitGuard | undefined => guards.get(orm);

/** Runs `guard` around every top-level transaction of `orm`. */
export function guardCommits(orm: MikroORM, guard: CommitGuard): void {
  if (guards.has(orm)) throw new Error("the ORM's commits are guarded already");
  guards.set(orm, guard);
  const after = new WeakMap<object, () => Promise<void>>();
  const settle = async (args: TransactionEventArgs) => {
    const trx = args.transaction as object | undefined;
    const run = trx && after.get(trx);
    if (!run) return;
    after.delete(trx);
    await run();
  };
  const subscriber: EventSubscriber = {
    async beforeTransactionCommit(args) {
      const trx = args.transaction as (object & { savepointName?: string }) | undefined;
      if (!trx || "savepointName" in trx) return;
      const connection = args.em.getConnection();
      const run = await guard.beforeCommit((sql) => connection.execute<Record<string, unknown>[]>(sql, [], "all", trx));
      if (run) after.set(trx, run);
    },
    afterTransactionCommit: settle,
    afterTransactionRollback: settle,
  };
  orm.em.getEventManager().registerSubscriber(subscriber);
}
