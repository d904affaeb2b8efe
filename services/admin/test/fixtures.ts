// The admin service's fixtures for the tests of other services (see @sca/testkit fixturesOf) and its own harness.
import { randomUUID } from "node:crypto";
import { bulkTransaction, column } from "@sca/db";
import type { ServiceFixtures } from "@sca/testkit";
import { chainNext, verifyChain, type ChainedEntry } from "../src/domain/audit-chain.ts";
import { AuditEntry } from "../src/store/entities/audit-entry.ts";

const COLUMNS = [
  "seq",
  "id",
  "occurred_at",
  "recorded_at",
  "source",
  "action",
  "outcome",
  "actor_user_id",
  "actor_api_key_id",
  "actor_email",
  "client_ip",
  "user_agent",
  "target_table",
  "target_id",
  "team_id",
  "organization_id",
  "request_id",
  "details",
  "prev_hash",
  "hash",
] as const;

const row = (e: ChainedEntry) => [
  e.seq,
  e.id,
  e.occurredAt,
  e.recordedAt,
  e.source,
  e.action,
  e.outcome,
  e.actorUserId,
  e.actorApiKeyId,
  e.actorEmail,
  e.clientIp,
  e.userAgent,
  e.targetTable,
  e.targetId,
  e.teamId,
  e.organizationId,
  e.requestId,
  e.details,
  e.prevHash,
  e.hash,
];

export const fixtures: ServiceFixtures["admin"] = {
  async auditEntries(orm, count, fields = () => ({})) {
    return bulkTransaction(orm, async (tx) => {
      // The consumer's chain lock, so a consumer appending meanwhile waits for the batch.
      await tx.query("select pg_advisory_xact_lock(7107000001)");
      const [head] = await tx.query("select seq, hash from audit_entries order by seq desc limit 1", [], {
        seq: column.integer,
        hash: column.text,
      });
      let last: { seq: number; hash: string } | null = head ?? null;
      const first = (last?.seq ?? 0) + 1;
      const now = new Date();
      const entries = function* () {
        for (let i = 0; i < count; i++) {
          const f = fields(i);
          const e = chainNext(last, {
            id: randomUUID(),
            occurredAt: f.occurredAt ?? now,
            recordedAt: now,
            source: "fixtures",
            action: f.action ?? "fixture.recorded",
            outcome: "success",
            actorUserId: f.actorUserId ?? "",
            actorApiKeyId: "",
            actorEmail: "fixture@example.com",
            clientIp: "192.0.2.1",
            userAgent: "jest",
            targetTable: f.targetTable ?? "fixtures",
            targetId: f.targetId ?? String(i),
            teamId: f.teamId ?? "",
            organizationId: "",
            requestId: "",
            details: { index: String(i) },
          });
          last = e;
          yield row(e);
        }
      };
      await tx.copyRows("audit_entries", COLUMNS, entries());
      return { first, last: first + count - 1 };
    });
  },
  async auditChain(orm) {
    const rows = await orm.em.fork().find(AuditEntry, {}, { orderBy: { seq: "asc" }, disableIdentityMap: true });
    const verdict = verifyChain(rows as ChainedEntry[]);
    return verdict.ok ? { ok: true, count: verdict.count } : { ok: false, count: rows.length, reason: verdict.reason };
  },
};
