// The enrichment feed routes through a real gateway, identity and scanner-runner: the three admin status panels with
// every field the spec lists (super_admin; 404 to anyone else) and the deployment's EPSS availability (any
// authenticated caller), as the runner's first start leaves them (vendored snapshots, refreshes off).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { ScannerToolService } from "@sca/proto/sca/scannerrunner/v1/scanner_tools_pb.ts";
import { callAs, closeTogether, fixturesOf, startService, uniqueName, type TestService } from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";

const execFileAsync = promisify(execFile);
let identity: TestService;
let runner: TestService;
let gateway: TestGateway;
let root: string;
let member: string;

async function get(path: string, bearer?: string) {
  const res = await fetch(`${gateway.origin}${path}`, {
    headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function until(check: () => Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the runner's first feed check");
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  runner = await startService("scanner-runner", {
    env: {
      KEV_REFRESH_ENABLED: "false",
      EPSS_REFRESH_ENABLED: "false",
      TASK_WORKER_CONCURRENCY: "1",
      TASK_WORKER_AUTOMATIC_CONCURRENCY: "0",
    },
  });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { "scanner-runner": runner.url! },
  });
  const fixtures = await fixturesOf("identity");
  root = await fixtures.accessToken(await fixtures.user(identity.orm, { superAdmin: true }));
  member = await fixtures.accessToken(await fixtures.user(identity.orm));
  await until(async () => ((await get("/v1/admin/malicious/status", root)).json.purl_count as number) > 0);
}, 120_000);

afterAll(async () => {
  await closeTogether([gateway, runner, identity]);
}, 120_000);

describe("the feeds' status panels", () => {
  it("shows the known-exploited feed with every field of the spec", async () => {
    const r = await get("/v1/admin/kev/status", root);
    expect(r.status).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual(
      [
        "delisted",
        "duration_ms",
        "enabled",
        "feed_count",
        "feed_host",
        "kev_flagged_total",
        "last_attempt_at",
        "last_result",
        "last_synced_at",
        "listed",
        "next_refresh_at",
        "skipped_reason",
      ].sort(),
    );
    expect(r.json).toMatchObject({
      enabled: false,
      feed_count: 1404,
      last_result: "skipped",
      skipped_reason: "KEV_REFRESH_ENABLED is false",
      last_synced_at: null,
      feed_host: "www.cisa.gov",
    });
  });

  it("shows the end-of-life dataset with every field of the spec", async () => {
    const r = await get("/v1/admin/eol/status", root);
    expect(r.status).toBe(200);
    for (const field of [
      "cleared",
      "duration_ms",
      "enabled",
      "eol_flagged_total",
      "feed_host",
      "last_attempt_at",
      "last_result",
      "last_synced_at",
      "next_refresh_at",
      "product_count",
      "refresh_enabled",
      "rule_count",
      "skipped_reason",
      "snapshot_date",
      "snapshot_origin",
      "stamped",
    ])
      expect(r.json).toHaveProperty(field);
    expect(r.json).toMatchObject({
      enabled: true,
      refresh_enabled: false,
      product_count: 73,
      snapshot_date: "2026-08-22",
      snapshot_origin: "vendored",
      last_result: "skipped",
    });
  });

  it("shows the malicious-package snapshot with every field of the spec", async () => {
    const r = await get("/v1/admin/malicious/status", root);
    expect(r.status).toBe(200);
    for (const field of [
      "ecosystems",
      "enabled",
      "flagged_total",
      "last_attempt_at",
      "last_result",
      "last_synced_at",
      "newly_flagged",
      "next_refresh_at",
      "purl_count",
      "refresh_enabled",
      "skipped_reason",
      "snapshot_date",
      "snapshot_stale",
      "stamped",
    ])
      expect(r.json).toHaveProperty(field);
    expect(r.json).toMatchObject({ snapshot_date: "2025-06-04", snapshot_stale: true, refresh_enabled: false });
  });

  it("serves the component counts the runner's last re-stamp recorded", async () => {
    // As a re-stamp records them (recordFeedCounts merges into feed_status.counts); this runner has no projects.
    const record = (feed: string, counts: Record<string, number>) =>
      runner.orm.em
        .getConnection()
        .execute(`update feed_status set counts = counts || ?::jsonb where feed = ?`, [JSON.stringify(counts), feed]);
    await record("eol", { stamped: 120, eol_flagged_total: 17, cleared: 3 });
    await record("malicious", { stamped: 95, flagged_total: 4, newly_flagged: 1 });
    expect((await get("/v1/admin/eol/status", root)).json).toMatchObject({
      stamped: 120,
      eol_flagged_total: 17,
      cleared: 3,
    });
    expect((await get("/v1/admin/malicious/status", root)).json).toMatchObject({
      stamped: 95,
      flagged_total: 4,
      newly_flagged: 1,
    });
  });

  it("shows the OSV advisory database's last import", async () => {
    await until(async () => (await get("/v1/admin/osv/status", root)).json.last_result !== "never");
    const r = await get("/v1/admin/osv/status", root);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      source: expect.any(String),
      database_version: expect.any(String),
      last_attempt_at: expect.any(String),
      last_result: expect.stringMatching(/^(imported|unchanged)$/),
      last_succeeded_at: expect.any(String),
      duration_ms: expect.any(Number),
      skipped_reasons: expect.any(Array),
      failure: null,
    });
    expect(r.json.advisory_count as number).toBeGreaterThan(0);
    for (const k of [
      "added_count",
      "updated_count",
      "unchanged_count",
      "removed_count",
      "withdrawn_count",
      "skipped_count",
    ])
      expect(r.json[k]).toEqual(expect.any(Number));
  }, 90_000);

  it("hides the panels from anyone but a super_admin", async () => {
    for (const path of [
      "/v1/admin/kev/status",
      "/v1/admin/eol/status",
      "/v1/admin/malicious/status",
      "/v1/admin/osv/status",
    ]) {
      expect((await get(path, member)).status).toBe(404);
      expect((await get(path)).status).toBe(401);
    }
  });
});

describe("refreshing a feed on request", () => {
  const post = async (path: string, bearer?: string) => {
    const res = await fetch(`${gateway.origin}${path}`, {
      method: "POST",
      headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const attemptedSince = async (feed: string, since: string) => {
    const panel = (await get(`/v1/admin/${feed}/status`, root)).json;
    return typeof panel.last_attempt_at === "string" && panel.last_attempt_at >= since;
  };

  it("is refused to anyone but a super_admin, starting nothing", async () => {
    for (const feed of ["kev", "eol", "malicious", "osv"]) {
      const before = (await get(`/v1/admin/${feed}/status`, root)).json.last_attempt_at;
      expect((await post(`/v1/admin/${feed}/refresh`, member)).status).toBe(404);
      expect((await post(`/v1/admin/${feed}/refresh`)).status).toBe(401);
      expect((await get(`/v1/admin/${feed}/status`, root)).json.last_attempt_at).toEqual(before);
    }
  });

  it("starts a refresh of each enrichment feed whose outcome the panel shows (here: skipped, refreshes off)", async () => {
    for (const feed of ["kev", "eol", "malicious"]) {
      const r = await post(`/v1/admin/${feed}/refresh`, root);
      expect(r.status).toBe(202);
      expect(r.json).toEqual({ feed, requested_at: expect.any(String) });
      const since = r.json.requested_at as string;
      await until(() => attemptedSince(feed, since));
      // This runner is started with the feeds' refresh keys off: the forced attempt honours them and says which.
      const panel = (await get(`/v1/admin/${feed}/status`, root)).json;
      expect(panel.last_result).toBe("skipped");
      expect(panel.skipped_reason).toEqual(expect.stringMatching(/REFRESH_ENABLED/));
    }
  }, 60_000);

  it("starts an import of the OSV advisory database, not yet due, whose outcome the panel shows", async () => {
    const r = await post("/v1/admin/osv/refresh", root);
    expect(r.status).toBe(202);
    const since = r.json.requested_at as string;
    await until(() => attemptedSince("osv", since), 90_000);
    const panel = (await get("/v1/admin/osv/status", root)).json;
    expect(panel).toMatchObject({ last_result: expect.stringMatching(/^(imported|unchanged)$/), failure: null });
    expect(panel.duration_ms).toEqual(expect.any(Number));
  }, 120_000);
});

describe("the scanner tools' versions (for admin's health panel)", () => {
  it("answers the installed cdxgen's and scancode's versions, as the tools themselves tell them, to admin only", async () => {
    const tools = async () =>
      (await runner.client(ScannerToolService).getScannerTools({}, await callAs.service("admin"))).tools;
    // scancode's version is asked in the background (python loads for seconds): a read meanwhile says so.
    await until(async () => (await tools()).every((t) => t.version !== ""));
    const byName = new Map((await tools()).map((t) => [t.name, t]));
    const told = async (command: string) =>
      // cdxgen colours its answer: the version is the digits and dots.
      /\d+\.\d+\.\d+/.exec((await execFileAsync(command, ["--version"], { encoding: "utf8" })).stdout)?.[0];
    expect(byName.get("cdxgen")).toMatchObject({ version: await told("cdxgen"), error: "" });
    expect(byName.get("scancode")).toMatchObject({ version: await told("scancode"), error: "" });
    await expect(
      runner.client(ScannerToolService).getScannerTools({}, await callAs.superAdmin(randomUUID())),
    ).rejects.toThrow();
  }, 60_000);
});

describe("GET /v1/gate-policies/epss-availability", () => {
  it("tells any signed-in person whether EPSS scores are held", async () => {
    const r = await get("/v1/gate-policies/epss-availability", member);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ available: true, last_synced_at: null, refresh_enabled: false, scored_cves: 9228 });
    expect((await get("/v1/gate-policies/epss-availability")).status).toBe(401);
  });
});
