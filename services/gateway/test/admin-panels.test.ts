// The health and disk panels through a real gateway, identity and admin: identity up (admin is pointed at it), the
// other services at a closed port (down, with the reason kept), PostgreSQL, Kafka, Redis and the artefact store
// probed for real, the SMTP relay a real local SMTP server greeting; the disk panel's items with the DISK_PRESSURE_*
// limits given. super_admin only.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { StatusPanelService } from "@sca/proto/sca/admin/v1/status_panels_pb.ts";
import {
  callAs,
  closeTogether,
  fixturesOf,
  startService,
  startTestSmtpServer,
  uniqueName,
  type TestService,
  type TestSmtpServer,
} from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { gatewayRequest, type GatewayRequest } from "./support/gateway-request.ts";

const CLOSED = "http://127.0.0.1:9";
let identity: TestService;
let admin: TestService;
let gateway: TestGateway;
let smtp: TestSmtpServer;
let request: GatewayRequest;
let root: string;
let token: string;
let someone: string;
/** A schema standing for the scanner-runner's, with one table of known contents. */
let scannerSchema: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "sca-gw-panels-"));
  smtp = await startTestSmtpServer();
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  // The disk panel measures the scanner-runner's schema as PostgreSQL counts it: one of this test's own, holding a
  // table of about 1 MB (a scanner-runner is not started for it).
  scannerSchema = uniqueName("scanner_db");
  await identity.orm.em.getConnection().execute(
    `create schema "${scannerSchema}";
     create table "${scannerSchema}".advisories as select g as id, repeat('x', 1000) as body
       from generate_series(1, 1000) g`,
  );
  // Every other service at a closed port: a portal running on this machine is never probed.
  admin = await startService("admin", {
    seams: { schemas: { "scanner-runner": scannerSchema } },
    env: {
      IDENTITY_RPC_URL: identity.url!,
      PROJECTS_RPC_URL: CLOSED,
      SCAN_ORCHESTRATOR_RPC_URL: CLOSED,
      SCANNER_RUNNER_RPC_URL: CLOSED,
      POLICY_RPC_URL: CLOSED,
      NOTIFIER_RPC_URL: CLOSED,
      SMTP_HOST: smtp.host,
      SMTP_PORT: String(smtp.port),
      ARTEFACT_DIR: join(root, "artefacts"),
      BACKUP_DIR: join(root, "backups"),
      BACKUP_AUTO_EVERY_HOURS: "0",
      DISK_PRESSURE_HARD_LIMIT_PERCENT: "90",
      DISK_PRESSURE_MIN_FREE_BYTES: "1024",
      AUDIT_LOG_RETENTION_DAYS: "30",
    },
  });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { admin: admin.url! },
  });
  request = gatewayRequest(gateway.origin);
  const people = await fixturesOf("identity");
  token = await people.accessToken(await people.user(identity.orm, { superAdmin: true }));
  // Three entries past the 30 days kept, two within.
  const day = 86_400_000;
  await (
    await fixturesOf("admin")
  ).auditEntries(admin.orm, 5, (i) => ({
    occurredAt: new Date(Date.now() - (i < 3 ? 31 + i : i) * day),
  }));
  someone = await people.accessToken(await people.user(identity.orm, { fullName: `P ${randomUUID()}` }));
}, 60_000);

afterAll(async () => {
  await identity?.orm.em.getConnection().execute(`drop schema if exists "${scannerSchema}" cascade`);
  await closeTogether([gateway, admin, identity].filter(Boolean));
  await smtp?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

type Component = {
  name: string;
  kind: string;
  state: string;
  latency_ms: number | null;
  version: string | null;
  last_error: string | null;
  last_error_at: string | null;
};

describe("GET /v1/admin/health", () => {
  it("probes every part now: state, latency, version and the last error", async () => {
    const r = await request("GET", "/v1/admin/health", { bearer: token });
    // The problem document, if any, shows in a failure.
    expect(r.status === 200 ? 200 : r.json).toBe(200);
    expect(new Date(r.json.updated_at as string).getTime()).toBeGreaterThan(Date.now() - 60_000);
    const byName = new Map((r.json.components as Component[]).map((c) => [c.name, c]));
    expect([...byName.keys()].sort()).toEqual(
      [
        "artefact_store",
        "cdxgen",
        "identity",
        "kafka",
        "notifier",
        "policy",
        "postgresql",
        "projects",
        "redis",
        "scan-orchestrator",
        "scancode",
        "scanner-runner",
        "smtp",
      ].sort(),
    );
    for (const name of ["identity", "postgresql", "kafka", "redis", "artefact_store", "smtp"]) {
      expect(byName.get(name)).toMatchObject({ state: "up", latency_ms: expect.any(Number) });
    }
    expect(byName.get("postgresql")!.version).toMatch(/^\d+/);
    expect(byName.get("redis")!.version).toMatch(/^\d+\.\d+/);
    expect(byName.get("projects")).toMatchObject({
      kind: "service",
      state: "down",
      latency_ms: null,
      last_error: expect.any(String),
      last_error_at: expect.any(String),
    });
    // The scanner tools are asked of the scanner-runner (closed here): down, with why (enrichment-feeds.test.ts
    // reads their versions from a running one).
    for (const name of ["cdxgen", "scancode"])
      expect(byName.get(name)).toMatchObject({ kind: "tool", state: "down", last_error: expect.any(String) });
    // The log is append-only: AUDIT_LOG_RETENTION_DAYS only counts what is older.
    expect(r.json.audit_retention).toEqual({ retention_days: 30, entries_past_retention: 3 });
    // The last error stays on the panel, and is never a stack.
    expect(byName.get("projects")!.last_error).not.toContain("    at ");
  }, 30_000);

  it("shows an SMTP relay that is not set up as not_configured", async () => {
    const bare = await startService("admin", { env: { BACKUP_AUTO_EVERY_HOURS: "0", BACKUP_DIR: join(root, "b2") } });
    try {
      const panel = await bare.client(StatusPanelService).getHealthPanel({}, await callAs.superAdmin(randomUUID()));
      expect(panel.components.find((c) => c.name === "smtp")).toMatchObject({ state: "not_configured", kind: "mail" });
    } finally {
      await bare.close();
    }
  }, 30_000);

  it("is hidden from anyone but a super_admin", async () => {
    expect((await request("GET", "/v1/admin/health", { bearer: someone })).status).toBe(404);
    expect((await request("GET", "/v1/admin/disk", { bearer: someone })).status).toBe(404);
  });
});

describe("GET /v1/admin/disk", () => {
  it("answers collected_at and the workspace, scanner database, database, cache and backups with the limits", async () => {
    const r = await request("GET", "/v1/admin/disk", { bearer: token });
    expect(r.status).toBe(200);
    expect(new Date(r.json.collected_at as string).getTime()).toBeGreaterThan(Date.now() - 60_000);
    const items = r.json.items as Record<string, unknown>[];
    expect(items.map((i) => i.name)).toEqual(["workspace", "scanner_database", "database", "cache", "backups"]);
    for (const i of items) expect(i).toMatchObject({ hard_limit_percent: 90, min_free_bytes: 1024 });
    const [workspace, scannerDatabase, database, cache, backups] = items;
    expect(workspace).toMatchObject({
      location: join(root, "artefacts"),
      state: expect.stringMatching(/^(ok|pressure)$/),
    });
    expect(workspace!.total_bytes as number).toBeGreaterThan(workspace!.free_bytes as number);
    expect(scannerDatabase).toMatchObject({ location: scannerSchema, state: "ok" });
    expect(scannerDatabase!.used_bytes as number).toBeGreaterThan(1_000_000);
    expect(scannerDatabase!.used_bytes as number).toBeLessThan(database!.used_bytes as number);
    expect(database!.used_bytes as number).toBeGreaterThan(0);
    expect(cache!.used_bytes as number).toBeGreaterThan(0);
    expect(backups).toMatchObject({ location: join(root, "backups"), used_bytes: 0 });
  }, 30_000);
});
