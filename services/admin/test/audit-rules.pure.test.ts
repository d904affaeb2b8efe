// The audit log's pure rules: the chain (canonical text, hashes, the verifier catching tampering), what an entry
// keeps of an event, the search's reading, the export's batching and who reads a team's entries.
import { describe, expect, it } from "@jest/globals";
import { ANONYMOUS, type Caller } from "@sca/rpc";
import {
  canonicalText,
  chainNext,
  entryHash,
  GENESIS_HASH,
  verifyChain,
  type ChainedEntry,
} from "../src/domain/audit-chain.ts";
import { mayReadTeamAudit } from "../src/domain/audit-access.ts";
import { auditQueryOf, entryOfEvent } from "../src/domain/audit-entry.ts";
import { exportablePrefix, exportBatch } from "../src/domain/audit-export.ts";

const T0 = new Date("2026-11-24T10:00:00.123Z");

function fields(i: number) {
  return {
    id: `0193a000-0000-7000-8000-${String(i).padStart(12, "0")}`,
    occurredAt: new Date(T0.getTime() + i),
    recordedAt: new Date(T0.getTime() + i + 5),
    source: "identity",
    action: "auth.login.succeeded",
    outcome: "success",
    actorUserId: "6f1c3a4e-0000-4000-8000-000000000001",
    actorApiKeyId: "",
    actorEmail: "ana@example.com",
    clientIp: "203.0.113.7",
    userAgent: "curl/8",
    targetTable: "users",
    targetId: "6f1c3a4e-0000-4000-8000-000000000001",
    teamId: "",
    organizationId: "",
    requestId: `req-${i}`,
    details: { b: "2", a: "1 \u00e9\n" },
  };
}

function chainOf(n: number): ChainedEntry[] {
  const out: ChainedEntry[] = [];
  for (let i = 0; i < n; i++) out.push(chainNext(out.at(-1) ?? null, fields(i)));
  return out;
}

describe("the hash chain", () => {
  it("serialises an entry canonically: fixed field order, sorted details, ISO times", () => {
    const e = chainOf(1)[0]!;
    expect(canonicalText(e)).toBe(
      JSON.stringify([
        "sca-audit-v1",
        1,
        e.id,
        "2026-11-24T10:00:00.123Z",
        "2026-11-24T10:00:00.128Z",
        "identity",
        "auth.login.succeeded",
        "success",
        e.actorUserId,
        "",
        "ana@example.com",
        "203.0.113.7",
        "curl/8",
        "users",
        e.targetId,
        "",
        "",
        "req-0",
        [
          ["a", "1 \u00e9\n"],
          ["b", "2"],
        ],
      ]),
    );
    // The order details arrived in does not matter.
    expect(canonicalText({ ...e, details: { a: "1 \u00e9\n", b: "2" } })).toBe(canonicalText(e));
  });

  it("links each entry to the one before, starting from the genesis hash", () => {
    const chain = chainOf(3);
    expect(chain.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(chain[0]!.prevHash).toBe(GENESIS_HASH);
    expect(chain[1]!.prevHash).toBe(chain[0]!.hash);
    expect(chain[2]!.prevHash).toBe(chain[1]!.hash);
    expect(chain[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyChain(chain)).toEqual({ ok: true, count: 3, last: { seq: 3, hash: chain[2]!.hash } });
  });

  it("verifies a batch after a known entry", () => {
    const chain = chainOf(5);
    expect(verifyChain(chain.slice(2), chain[1])).toMatchObject({ ok: true, count: 3 });
    expect(verifyChain(chain.slice(2))).toEqual({ ok: false, seq: 3, reason: "seq_gap" });
  });

  it("detects a changed field", () => {
    const chain = chainOf(4);
    chain[2] = { ...chain[2]!, actorEmail: "mallory@example.com" };
    expect(verifyChain(chain)).toEqual({ ok: false, seq: 3, reason: "hash_mismatch" });
    const touched = chainOf(4);
    touched[1] = { ...touched[1]!, details: { ...touched[1]!.details, b: "3" } };
    expect(verifyChain(touched)).toEqual({ ok: false, seq: 2, reason: "hash_mismatch" });
  });

  it("detects a removed entry, and one removed with its position renumbered", () => {
    const chain = chainOf(4);
    expect(verifyChain([chain[0]!, chain[1]!, chain[3]!])).toEqual({ ok: false, seq: 4, reason: "seq_gap" });
    const renumbered = { ...chain[3]!, seq: 3 };
    expect(verifyChain([chain[0]!, chain[1]!, renumbered])).toEqual({
      ok: false,
      seq: 3,
      reason: "prev_hash_mismatch",
    });
  });

  it("detects a removed entry whose successor's prev_hash was rewritten", () => {
    const chain = chainOf(4);
    const forged = { ...chain[3]!, seq: 3, prevHash: chain[1]!.hash };
    expect(verifyChain([chain[0]!, chain[1]!, forged])).toEqual({ ok: false, seq: 3, reason: "hash_mismatch" });
  });

  it("detects reordered entries and a rewritten hash", () => {
    const chain = chainOf(3);
    expect(verifyChain([chain[0]!, chain[2]!, chain[1]!])).toMatchObject({ ok: false, seq: 3, reason: "seq_gap" });
    const rehashed = { ...chain[1]!, hash: entryHash(GENESIS_HASH, chain[1]!) };
    expect(verifyChain([chain[0]!, rehashed, chain[2]!])).toEqual({ ok: false, seq: 2, reason: "hash_mismatch" });
  });
});

describe("an entry of an event", () => {
  const event = {
    eventId: "ignored",
    occurredAt: T0,
    source: "projects",
    action: "project.created",
    outcome: "success",
    actor: {
      userId: "6F1C3A4E-0000-4000-8000-000000000001",
      apiKeyId: "",
      email: "a@example.com",
      ip: "10.0.0.1",
      userAgent: "ua\0x",
    },
    targetTable: "projects",
    targetId: "p1",
    teamId: "",
    organizationId: "",
    requestId: "r1",
    details: { "k\0": "v\0" },
  };

  it("keeps every field, ids lower-cased, NUL dropped, the header's event id", () => {
    const e = entryOfEvent(event, "0193A000-0000-7000-8000-000000000001", new Date(0));
    expect(e).toMatchObject({
      id: "0193a000-0000-7000-8000-000000000001",
      occurredAt: T0,
      actorUserId: "6f1c3a4e-0000-4000-8000-000000000001",
      userAgent: "uax",
      details: { k: "v" },
      targetTable: "projects",
      requestId: "r1",
    });
  });

  it("takes the record's time when the event has none, and empty actor fields when it has no actor", () => {
    const received = new Date("2026-01-01T00:00:00Z");
    const e = entryOfEvent({ ...event, occurredAt: undefined, actor: undefined }, "x", received);
    expect(e.occurredAt).toEqual(received);
    for (const odd of [new Date(Number.NaN), new Date(Date.UTC(10000, 0, 1)), new Date(Date.UTC(-5, 0, 1))])
      expect(entryOfEvent({ ...event, occurredAt: odd }, "x", received).occurredAt).toEqual(received);
    expect([e.actorUserId, e.actorEmail, e.clientIp]).toEqual(["", "", ""]);
  });
});

describe("a search of the log", () => {
  it("reads every filter", () => {
    const from = new Date("2026-01-01T00:00:00Z");
    const to = new Date("2026-02-01T00:00:00Z");
    expect(
      auditQueryOf({
        actorUserId: "6F1C3A4E-0000-4000-8000-000000000001",
        targetTable: "users",
        action: "auth.login.failed",
        from,
        to,
        q: "ana",
      }),
    ).toEqual({
      ok: true,
      query: {
        actorUserId: "6f1c3a4e-0000-4000-8000-000000000001",
        targetTable: "users",
        action: "auth.login.failed",
        from,
        to,
        q: "ana",
      },
    });
    expect(auditQueryOf(undefined)).toEqual({ ok: true, query: {} });
  });

  it("reads an action ending in .* as a prefix", () => {
    expect(auditQueryOf({ action: "api_key.*" })).toEqual({ ok: true, query: { actionPrefix: "api_key." } });
  });

  it("refuses a malformed actor, an inverted window and overlong text, naming the parameters", () => {
    const r = auditQueryOf({
      actorUserId: "nobody",
      from: new Date("2026-02-01T00:00:00Z"),
      to: new Date("2026-01-01T00:00:00Z"),
      q: "x".repeat(201),
      action: "a".repeat(129),
    });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.violations.map((v) => v.path).sort()).toEqual([
        "query.action",
        "query.actor_user_id",
        "query.from",
        "query.q",
      ]);
  });
});

describe("the export's batches", () => {
  it("sends entries old enough, stopping at the first that is not", () => {
    const at = (s: number) => ({ recordedAt: new Date(T0.getTime() + s * 1000) });
    const entries = [at(0), at(1), at(10), at(2)];
    expect(exportablePrefix(entries, new Date(T0.getTime() + 5000))).toEqual([at(0), at(1)]);
    expect(exportablePrefix(entries, new Date(T0.getTime() + 60_000))).toHaveLength(4);
    expect(exportablePrefix(entries, new Date(T0.getTime() - 1))).toEqual([]);
  });

  it("names its positions and hashes, each entry with its chain fields", () => {
    const chain = chainOf(3);
    const batch = exportBatch(chain.slice(1), T0);
    expect(batch).toMatchObject({
      format: "sca-audit-batch-v1",
      batch_id: "2-3",
      first_seq: 2,
      last_seq: 3,
      prev_hash: chain[0]!.hash,
      last_hash: chain[2]!.hash,
      count: 2,
      sent_at: T0.toISOString(),
    });
    expect(batch.entries[0]).toMatchObject({
      seq: 2,
      id: chain[1]!.id,
      hash: chain[1]!.hash,
      actor_email: "ana@example.com",
    });
  });
});

describe("who reads a team's entries", () => {
  const team = "11111111-1111-4111-8111-111111111111";
  const person = (role: "viewer" | "developer" | "team_admin" | "group_admin", teamId = team): Caller => ({
    ...ANONYMOUS,
    kind: "user",
    user_id: "u",
    memberships: [{ team_id: teamId, organization_id: null, role }],
  });

  it("team_admin and above on the team, and super_admins", () => {
    expect(mayReadTeamAudit(person("team_admin"), team)).toBe(true);
    expect(mayReadTeamAudit(person("group_admin"), team)).toBe(true);
    expect(mayReadTeamAudit({ ...ANONYMOUS, kind: "user", user_id: "s", is_superuser: true }, team)).toBe(true);
  });

  it("not developers, viewers, admins of another team, or API keys", () => {
    expect(mayReadTeamAudit(person("developer"), team)).toBe(false);
    expect(mayReadTeamAudit(person("viewer"), team)).toBe(false);
    expect(mayReadTeamAudit(person("team_admin", "22222222-2222-4222-8222-222222222222"), team)).toBe(false);
    expect(mayReadTeamAudit({ ...person("team_admin"), kind: "api_key", api_key_id: "k" }, team)).toBe(false);
  });
});
