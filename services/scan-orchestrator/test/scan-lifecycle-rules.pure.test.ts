import { describe, expect, it } from "@jest/globals";
import { leaseVerdict, retryPlan, retryWaitMs } from "../src/domain/job-retry.ts";
import {
  retentionHorizon,
  scansToDelete,
  type RetentionCandidate,
  type RetentionSettings,
} from "../src/domain/retention.ts";
import { nextLogLine, normalizeLogStream, truncateLogLine } from "@sca/scan-logs";

const NOW = new Date("2026-11-24T12:00:00Z");
const DAY = 86_400_000;
const daysAgo = (d: number) => new Date(NOW.getTime() - d * DAY);

describe("retry back-off", () => {
  const policy = { maxAttempts: 3, delaysSeconds: [30, 120, 600] };

  it("retries through the tiers with their delays until the attempts run out", () => {
    expect(retryPlan(1, policy, NOW, "clone failed")).toEqual({
      kind: "retry",
      attempt: 2,
      tier: 1,
      notBefore: new Date(NOW.getTime() + 30_000),
    });
    expect(retryPlan(2, policy, NOW, "clone failed")).toEqual({
      kind: "retry",
      attempt: 3,
      tier: 2,
      notBefore: new Date(NOW.getTime() + 120_000),
    });
    expect(retryPlan(3, policy, NOW, "clone failed")).toEqual({
      kind: "exhausted",
      message: "clone failed (gave up after 3 attempts)",
    });
  });

  it("uses the third tier for the last retry of four attempts, and repeats the last delay when fewer are given", () => {
    expect(retryPlan(3, { maxAttempts: 4, delaysSeconds: [30, 120, 600] }, NOW, "x")).toMatchObject({
      attempt: 4,
      tier: 3,
      notBefore: new Date(NOW.getTime() + 600_000),
    });
    expect(retryPlan(3, { maxAttempts: 4, delaysSeconds: [45] }, NOW, "x")).toMatchObject({
      tier: 3,
      notBefore: new Date(NOW.getTime() + 45_000),
    });
  });

  it("never retries with one attempt", () => {
    expect(retryPlan(1, { maxAttempts: 1, delaysSeconds: [30] }, NOW, "boom")).toEqual({
      kind: "exhausted",
      message: "boom (gave up after 1 attempt)",
    });
  });

  it("waits until not_before and no longer", () => {
    expect(retryWaitMs(new Date(NOW.getTime() + 1500), NOW)).toBe(1500);
    expect(retryWaitMs(new Date(NOW.getTime() - 1), NOW)).toBe(0);
  });
});

describe("lease rule", () => {
  const runningUntil = (expires: Date | null, attempt = 1) => ({ status: "running", attempt, leaseExpiresAt: expires });

  it("leaves a running scan alone while its lease holds, and anything not running", () => {
    expect(leaseVerdict(runningUntil(new Date(NOW.getTime() + 1)), NOW, 3)).toEqual({ kind: "alive" });
    expect(leaseVerdict({ status: "queued", attempt: 1, leaseExpiresAt: null }, NOW, 3)).toEqual({ kind: "alive" });
    expect(leaseVerdict({ status: "succeeded", attempt: 1, leaseExpiresAt: daysAgo(1) }, NOW, 3)).toEqual({
      kind: "alive",
    });
  });

  it("publishes a scan whose worker vanished again as its next attempt", () => {
    expect(leaseVerdict(runningUntil(NOW), NOW, 3)).toEqual({ kind: "republish", attempt: 2 });
    expect(leaseVerdict(runningUntil(daysAgo(1), 2), NOW, 3)).toEqual({ kind: "republish", attempt: 3 });
  });

  it("fails it once the attempts are used up", () => {
    expect(leaseVerdict(runningUntil(NOW, 3), NOW, 3)).toEqual({
      kind: "fail",
      message: "The worker running the scan stopped responding (gave up after 3 attempts)",
    });
  });
});

describe("retention", () => {
  const settings: RetentionSettings = { supersededGraceDays: 7, keepLast: 2, maxAgeDays: 180 };
  let n = 0;
  const scan = (o: Partial<RetentionCandidate> & { ageDays: number }): RetentionCandidate => ({
    id: `s${String(++n).padStart(3, "0")}`,
    status: "succeeded",
    normalizedRef: "refs/heads/main",
    release: null,
    createdAt: daysAgo(o.ageDays),
    supersededAt: null,
    ...o,
  });
  const ids = (d: { id: string }[]) => d.map((x) => x.id).sort();

  it("deletes superseded scans once the grace has passed, not before", () => {
    const latest = scan({ ageDays: 1 });
    const old = scan({ ageDays: 20, supersededAt: daysAgo(8) });
    const recent = scan({ ageDays: 10, supersededAt: daysAgo(6) });
    expect(scansToDelete([latest, old, recent], NOW, settings)).toEqual([{ id: old.id, reason: "superseded" }]);
  });

  it("deletes finished scans past the age ceiling, but never release-labelled ones", () => {
    const latest = scan({ ageDays: 1 });
    const aged = scan({ ageDays: 181, normalizedRef: "refs/heads/dev" });
    const release = scan({ ageDays: 400, normalizedRef: "refs/tags/v1", release: "1.0" });
    const supersededRelease = scan({ ageDays: 30, release: "0.9", supersededAt: daysAgo(20) });
    expect(scansToDelete([latest, aged, release, supersededRelease], NOW, settings)).toEqual([
      { id: aged.id, reason: "max_age" },
    ]);
  });

  it("keeps the project's latest succeeded scan whatever its age", () => {
    const only = scan({ ageDays: 999 });
    const failedLater = scan({ ageDays: 900, status: "failed" });
    expect(scansToDelete([only, failedLater], NOW, { ...settings, keepLast: 0 })).toEqual([
      { id: failedLater.id, reason: "max_age" },
    ]);
  });

  it("keeps the newest KEEP_LAST ref-less or unsuccessful scans, even superseded or aged", () => {
    const refless = [1, 2, 3, 4].map((d) => scan({ ageDays: 200 + d, normalizedRef: "", supersededAt: daysAgo(100) }));
    const failed = [scan({ ageDays: 300, status: "failed" }), scan({ ageDays: 190, status: "cancelled" })];
    const latest = scan({ ageDays: 1, normalizedRef: "refs/heads/main" });
    const out = scansToDelete([...refless, ...failed, latest], NOW, settings);
    // newest two of {refless 201..204 days, failed 300, cancelled 190}: cancelled (190) and refless (201)
    expect(ids(out)).toEqual(ids([refless[1]!, refless[2]!, refless[3]!, failed[0]!]));
    expect(out.find((d) => d.id === refless[1]!.id)?.reason).toBe("superseded");
    expect(out.find((d) => d.id === failed[0]!.id)?.reason).toBe("max_age");
  });

  it("counts only finished scans among the KEEP_LAST kept", () => {
    const latest = scan({ ageDays: 1 });
    const queued = scan({ ageDays: 190, normalizedRef: "", status: "queued" });
    const failed = scan({ ageDays: 200, normalizedRef: "", status: "failed" });
    expect(scansToDelete([latest, queued, failed], NOW, { ...settings, keepLast: 1 })).toEqual([]);
  });

  it("never deletes queued or running scans", () => {
    const latest = scan({ ageDays: 1 });
    const stuck = [scan({ ageDays: 400, status: "queued" }), scan({ ageDays: 400, status: "running" })];
    expect(scansToDelete([latest, ...stuck], NOW, { ...settings, keepLast: 0 })).toEqual([]);
  });

  it("has no age ceiling at SCAN_RETENTION_MAX_AGE_DAYS=0", () => {
    const latest = scan({ ageDays: 1 });
    const ancient = scan({ ageDays: 5000, normalizedRef: "refs/heads/old" });
    expect(scansToDelete([latest, ancient], NOW, { ...settings, maxAgeDays: 0 })).toEqual([]);
    expect(retentionHorizon(NOW, { ...settings, maxAgeDays: 0 })).toEqual({
      supersededBefore: daysAgo(7),
      createdBefore: null,
    });
    expect(retentionHorizon(NOW, settings)).toEqual({ supersededBefore: daysAgo(7), createdBefore: daysAgo(180) });
  });

  it("deletes a superseded scan the day its grace ends with a grace of 0", () => {
    const latest = scan({ ageDays: 1 });
    const justSuperseded = scan({ ageDays: 2, supersededAt: NOW });
    expect(scansToDelete([latest, justSuperseded], NOW, { ...settings, supersededGraceDays: 0 })).toEqual([
      { id: justSuperseded.id, reason: "superseded" },
    ]);
  });
});

describe("scan log lines", () => {
  const limits = { lineMaxLen: 10, maxLines: 3 };

  it("truncates long lines to the limit, ending with a mark", () => {
    expect(truncateLogLine("short", 10)).toBe("short");
    expect(truncateLogLine("0123456789", 10)).toBe("0123456789");
    expect(truncateLogLine("0123456789A", 10)).toBe("012345678…");
    expect(truncateLogLine("abc", 1)).toBe("…");
  });

  it("counts characters, never splitting a surrogate pair", () => {
    const emoji = "😀".repeat(12);
    const cut = truncateLogLine(emoji, 10);
    expect([...cut]).toHaveLength(10);
    expect(cut).toBe("😀".repeat(9) + "…");
    expect(truncateLogLine("😀".repeat(10), 10)).toBe("😀".repeat(10));
  });

  it("drops a trailing carriage return", () => {
    expect(truncateLogLine("done\r", 10)).toBe("done");
  });

  it("normalises unknown streams to stdout", () => {
    expect(normalizeLogStream("stderr")).toBe("stderr");
    expect(normalizeLogStream("stdout")).toBe("stdout");
    expect(normalizeLogStream("trace")).toBe("stdout");
  });

  it("stops sending after the per-scan cap, counting every stage together", () => {
    const decisions = [0, 1, 2, 3, 4].map((sent) => nextLogLine(sent, "line that is long", "err", limits));
    expect(decisions.slice(0, 3)).toEqual(
      [1, 2, 3].map((lineNumber) => ({ send: true, lineNumber, line: "line that…", stream: "stdout" })),
    );
    expect(decisions.slice(3)).toEqual([{ send: false }, { send: false }]);
    expect(nextLogLine(0, "x", "stdout", { lineMaxLen: 10, maxLines: 0 })).toEqual({ send: false });
  });
});
