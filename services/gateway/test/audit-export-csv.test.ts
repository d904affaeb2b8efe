// The audit CSV at its cap, through a real gateway and admin: 100 000 entries written in bulk come out as 100 000
// lines (the newest, each once), read by the service one bounded chunk at a time, and the heap of the process (the
// gateway, admin and this test share it) stays flat while they stream: it does not grow with the rows.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { AuditService } from "@sca/proto/sca/admin/v1/audit_pb.ts";
import { callAs, fixturesOf } from "@sca/testkit";
import { startAuditStack, type AuditStack } from "./audit-stack.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const ROWS = 100_000;
let s: AuditStack;
let root: { id: string; token: string };
let first: number;
let last: number;

beforeAll(async () => {
  s = await startAuditStack();
  root = await s.superAdmin();
  const admin = await fixturesOf("admin");
  // A few older entries first: the CSV holds the newest 100 000 only.
  await admin.auditEntries(s.admin.orm, 5);
  ({ first, last } = await admin.auditEntries(s.admin.orm, ROWS));
}, 180_000);

afterAll(async () => {
  await s?.close();
});

const heapMb = () => {
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

describe("GET /v1/admin/audit/export.csv at 100 000 rows", () => {
  it("reads the log in chunks of at most 1000 rows", async () => {
    const audit = s.admin.client(AuditService);
    let largest = 0;
    let rows = 0;
    for await (const chunk of audit.exportAuditEntries({}, await callAs.superAdmin(root.id))) {
      largest = Math.max(largest, chunk.items.length);
      rows += chunk.items.length;
    }
    expect(rows).toBe(ROWS);
    expect(largest).toBe(1000);
  }, 120_000);

  it("streams the newest 100 000 entries, each once, with a flat heap", async () => {
    const baseline = heapMb();
    const res = await fetch(`${s.gateway.origin}/v1/admin/audit/export.csv`, {
      headers: { authorization: `Bearer ${root.token}` },
    });
    expect(res.status).toBe(200);
    // One bit per position: what arrived, without keeping the text.
    const seen = new Uint8Array(last + 1);
    let lines = 0;
    let duplicates = 0;
    let peak = 0;
    let rest = "";
    const decoder = new TextDecoder();
    for await (const bytes of res.body!) {
      const text = rest + decoder.decode(bytes as Uint8Array, { stream: true });
      const parts = text.split("\r\n");
      rest = parts.pop()!;
      for (const line of parts) {
        if (lines++ === 0) continue; // the header
        const seq = Number(line.split(",")[1]);
        if (seen[seq]) duplicates++;
        seen[seq] = 1;
        if (lines % 10_000 === 0) peak = Math.max(peak, heapMb() - baseline);
      }
    }
    expect(rest).toBe("");
    expect(lines - 1).toBe(ROWS);
    expect(duplicates).toBe(0);
    expect(seen.subarray(first, last + 1).every((b) => b === 1)).toBe(true);
    expect(seen.subarray(0, first).some((b) => b === 1)).toBe(false);
    // 100 000 rows held at once would be hundreds of MB; a chunk at a time is a few.
    expect(peak).toBeLessThan(40);
  }, 180_000);
});
