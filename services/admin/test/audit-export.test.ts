// Shipping the log to AUDIT_EXPORT_URL through the real job, against real local HTTP collectors: batches of the
// configured size in chain order, the position moving only after a 2xx, nothing lost while the collector is down or
// refusing, and a restarted admin resuming from the stored position without a gap or a duplicate.
import { afterEach, describe, expect, it } from "@jest/globals";
import { createLogger } from "@sca/log";
import { startServiceInstance, type ServiceInstance } from "@sca/runtime";
import { startService, TEST_SECRET, testServers, uniqueName, type TestService } from "@sca/testkit";
import { verifyChain, type ChainedEntry } from "../src/domain/audit-chain.ts";
import { service } from "../src/service.ts";
import { exportPosition } from "../src/store/export-position.ts";
import { fixtures } from "./fixtures.ts";
import { startCollector, waitUntil, type CollectedBatch, type TestCollector } from "./support/collector.ts";

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const exportEnv = (url: string, batchSize: number) => ({
  AUDIT_EXPORT_URL: url,
  AUDIT_EXPORT_BATCH_SIZE: String(batchSize),
  AUDIT_EXPORT_LAG_SECONDS: "0",
});

async function startAdmin(collector: TestCollector, batchSize: number, schema?: string): Promise<TestService> {
  const admin = await startService(service, {
    env: exportEnv(collector.url, batchSize),
    seams: { auditExportEveryMs: 150 },
    ...(schema ? { schema } : {}),
  });
  cleanup.push(() => admin.close());
  return admin;
}

/** The batches' entries as the chain's fields, to verify what the collector holds. */
function chainOf(batches: CollectedBatch[]): ChainedEntry[] {
  return batches.flatMap((b) =>
    b.entries.map((e) => ({
      seq: e.seq as number,
      id: e.id as string,
      occurredAt: new Date(e.occurred_at as string),
      recordedAt: new Date(e.recorded_at as string),
      source: e.source as string,
      action: e.action as string,
      outcome: e.outcome as string,
      actorUserId: e.actor_user_id as string,
      actorApiKeyId: e.actor_api_key_id as string,
      actorEmail: e.actor_email as string,
      clientIp: e.client_ip as string,
      userAgent: e.user_agent as string,
      targetTable: e.target_table as string,
      targetId: e.target_id as string,
      teamId: e.team_id as string,
      organizationId: e.organization_id as string,
      requestId: e.request_id as string,
      details: e.details as Record<string, string>,
      prevHash: e.prev_hash as string,
      hash: e.hash as string,
    })),
  );
}

/** The stored position once it reaches `seq` (the collector hears a batch just before its position commits). */
async function positionReaches(admin: { orm: TestService["orm"] }, seq: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const position = await exportPosition(admin.orm.em.fork());
    if (position >= seq || Date.now() > deadline) return position;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("the audit export", () => {
  it("posts batches of AUDIT_EXPORT_BATCH_SIZE in chain order, each entry once, verifiable end to end", async () => {
    const collector = await startCollector();
    cleanup.push(() => collector.close());
    const admin = await startAdmin(collector, 4);
    await fixtures.auditEntries(admin.orm, 10);
    await waitUntil(() => collector.seqs().length >= 10, "ten entries at the collector");
    expect(collector.seqs()).toEqual(range(1, 10));
    expect(collector.accepted.map((b) => [b.first_seq, b.last_seq, b.count])).toEqual([
      [1, 4, 4],
      [5, 8, 4],
      [9, 10, 2],
    ]);
    expect(verifyChain(chainOf(collector.accepted))).toMatchObject({ ok: true, count: 10 });
    expect(collector.accepted[1]!.prev_hash).toBe(collector.accepted[0]!.last_hash);
    expect(await positionReaches(admin, 10)).toBe(10);
    // Later entries continue from the position.
    await fixtures.auditEntries(admin.orm, 3);
    await waitUntil(() => collector.seqs().length >= 13, "thirteen entries at the collector");
    expect(collector.seqs()).toEqual(range(1, 13));
  }, 60_000);

  it("loses nothing while the collector is down or refusing, and moves on once it accepts", async () => {
    const collector = await startCollector(500);
    cleanup.push(() => collector.close());
    await collector.down();
    const admin = await startAdmin(collector, 5);
    await fixtures.auditEntries(admin.orm, 12);
    // Down: connection refused, run after run.
    await new Promise((r) => setTimeout(r, 600));
    expect(await exportPosition(admin.orm.em.fork())).toBe(0);
    // Up but failing: the position stays.
    await collector.up();
    await waitUntil(() => collector.attempts >= 3, "three refused posts");
    expect(collector.accepted).toEqual([]);
    expect(await exportPosition(admin.orm.em.fork())).toBe(0);
    collector.answer = 202;
    await waitUntil(() => collector.seqs().length >= 12, "twelve entries at the collector");
    expect(collector.seqs()).toEqual(range(1, 12));
    expect(await positionReaches(admin, 12)).toBe(12);
  }, 60_000);

  it("resumes after a restart of admin from the stored position, without a gap or a duplicate", async () => {
    const collector = await startCollector();
    cleanup.push(() => collector.close());
    const schema = uniqueName("admin_restart");
    const prefix = `${schema}.`;
    const servers = testServers();
    // The first admin is the runtime's own instance: stopping it keeps the schema the second one starts on.
    const first: ServiceInstance = await startServiceInstance(service, {
      migrate: true,
      schema,
      logger: createLogger("admin-test", "ERROR"),
      seams: { auditExportEveryMs: 150 },
      env: {
        DATABASE_URL: servers.databaseUrl,
        KAFKA_BROKERS: servers.kafkaBrokers.join(","),
        KAFKA_TOPIC_PREFIX: prefix,
        SECRET_KEY: TEST_SECRET,
        RPC_PORT: "0",
        ...exportEnv(collector.url, 3),
      },
    });
    let firstOpen = true;
    cleanup.push(async () => {
      if (firstOpen) await first.close();
    });
    // The collector takes two batches, then refuses: the first admin stops with entries 7..9 unsent.
    collector.acceptAtMost = 2;
    await fixtures.auditEntries(first.orm, 9);
    await waitUntil(() => collector.attempts >= 4, "a refused post after two batches");
    expect(collector.seqs()).toEqual(range(1, 6));
    expect(await positionReaches(first, 6)).toBe(6);
    await first.close();
    firstOpen = false;

    collector.acceptAtMost = null;
    const second = await startService(service, {
      schema,
      env: { KAFKA_TOPIC_PREFIX: prefix, ...exportEnv(collector.url, 3) },
      seams: { auditExportEveryMs: 150 },
    });
    cleanup.push(() => second.close());
    await fixtures.auditEntries(second.orm, 2);
    await waitUntil(() => collector.seqs().length >= 11, "eleven entries at the collector");
    expect(collector.seqs()).toEqual(range(1, 11));
    expect(verifyChain(chainOf(collector.accepted))).toMatchObject({ ok: true, count: 11 });
  }, 60_000);
});
