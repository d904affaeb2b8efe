// Notifications end to end: a real identity, projects, scan-orchestrator and notifier behind a real gateway (one
// topic prefix, as in a deployment), real PostgreSQL, Redis and Kafka, and a real SMTP server (smtp-server, STARTTLS
// with a test CA, AUTH) receiving what the notifier sends; mailparser reads what arrived.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { createLogger } from "@sca/log";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import {
  closeTogether,
  callAs,
  eventually,
  fixturesOf,
  startService,
  startTestSmtpServer,
  uniqueName,
  type ReceivedMail,
  type TestService,
  type TestSmtpServer,
} from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { gatewayRequest, type GatewayRequest, type Reply } from "./support/gateway-request.ts";

const RESET_BASE = "https://portal.example.com/reset-password";
const SMTP_USER = "notifier";
const SMTP_PASSWORD = "smtp-password-not-to-be-logged";

let identity: TestService;
let projects: TestService;
let scans: TestService;
let notifier: TestService;
let gateway: TestGateway;
let smtp: TestSmtpServer;
const logLines: string[] = [];

function capture(service: string) {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  return createLogger(service, "DEBUG", sink);
}

let request: GatewayRequest;

async function team(): Promise<string> {
  const slug = `team-${randomUUID().slice(0, 8)}`;
  const { team: t } = await identity
    .client(DirectoryService)
    .createTeam({ name: `Team ${slug}`, slug }, await callAs.superAdmin(randomUUID()));
  return t!.id;
}

interface TestPerson {
  id: string;
  email: string;
  bearer: string;
}

async function person(teamId: string | null, role: string): Promise<TestPerson> {
  const fixtures = await fixturesOf("identity");
  const email = `${randomUUID().slice(0, 12)}@example.com`;
  const id = await fixtures.user(identity.orm, { email, fullName: `Person ${role}` });
  if (teamId)
    await identity
      .client(DirectoryService)
      .addTeamMember({ teamId, userId: id, role }, await callAs.superAdmin(randomUUID()));
  return { id, email, bearer: await fixtures.accessToken(id) };
}

async function failedScan(teamId: string, dev: TestPerson): Promise<{ projectId: string; scanId: string }> {
  const slug = `p-${randomUUID().slice(0, 8)}`;
  const created = await request("POST", "/v1/projects", {
    bearer: dev.bearer,
    body: { name: `P ${slug}`, slug, team_id: teamId },
  });
  expect(created.status).toBe(201);
  const projectId = created.json.id as string;
  // A sbom scan without an upload fails at once: a real ScanStateChanged(failed) from the scan-orchestrator.
  const scan = await request("POST", `/v1/projects/${projectId}/scans`, { bearer: dev.bearer, body: { kind: "sbom" } });
  expect(scan.json).toMatchObject({ status: "failed" });
  return { projectId, scanId: scan.json.id as string };
}

const list = (p: TestPerson, query = "") => request("GET", `/v1/notifications${query}`, { bearer: p.bearer });
const itemsOf = (r: Reply) => r.json.items as Record<string, unknown>[];
const mailTo = (address: string, subject: RegExp) => (m: ReceivedMail) =>
  m.to.includes(address) && subject.test(m.parsed.subject ?? "");

beforeAll(async () => {
  smtp = await startTestSmtpServer({ user: SMTP_USER, password: SMTP_PASSWORD });
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const KAFKA_TOPIC_PREFIX = `${uniqueName("notify_stack")}.`;
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: RESET_BASE, PASSWORD_RESET_EMAIL_COOLDOWN_SECONDS: "0", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
    logger: capture("identity"),
  });
  projects = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX } });
  scans = await startService("scan-orchestrator", { env: { PROJECTS_RPC_URL: projects.url!, KAFKA_TOPIC_PREFIX } });
  notifier = await startService("notifier", {
    env: {
      IDENTITY_RPC_URL: identity.url!,
      KAFKA_TOPIC_PREFIX,
      PASSWORD_RESET_BASE_URL: RESET_BASE,
      SMTP_HOST: smtp.host,
      SMTP_PORT: String(smtp.port),
      SMTP_USER,
      SMTP_PASSWORD,
      SMTP_USE_STARTTLS: "true",
      SMTP_FROM: "SCA Portal <portal@example.com>",
      SMTP_TIMEOUT_SECONDS: "5",
    },
    seams: { deliveryEveryMs: 200, deliveryRetryBaseMs: 500, smtpTrust: { ca: smtp.caPem }, digestEveryMs: 2_000 },
    logger: capture("notifier"),
  });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { projects: projects.url!, "scan-orchestrator": scans.url!, notifier: notifier.url! },
    logger: capture("gateway"),
  });
  request = gatewayRequest(gateway.origin);
}, 120_000);

afterAll(async () => {
  await closeTogether([gateway, notifier, scans, projects, identity, smtp]);
}, 120_000);

describe("the password-reset e-mail", () => {
  it("arrives over STARTTLS with the link of PASSWORD_RESET_BASE_URL, which resets the password; the token is in no log line", async () => {
    const fixtures = await fixturesOf("identity");
    const email = `${randomUUID().slice(0, 12)}@example.com`;
    await fixtures.person(identity.orm, { email, password: "old-password-Zq8!" });
    // The SMTP server refuses the first try: the delivery is tried again and arrives once.
    smtp.refuseNext(1);
    expect((await request("POST", "/auth/forgot-password", { body: { email } })).status).toBe(204);
    const mail = await smtp.waitFor(mailTo(email, /reset your password/i));
    expect(smtp.refused).toBe(1);
    expect(mail.secure).toBe(true);
    expect(mail.from).toBe("portal@example.com");
    const link = /https:\/\/portal\.example\.com\/reset-password\?token=[A-Za-z0-9_-]+/.exec(mail.parsed.text ?? "");
    expect(link).not.toBeNull();
    expect(mail.parsed.html).toContain(link![0]);
    const token = new URL(link![0]).searchParams.get("token")!;
    const reset = await request("POST", "/auth/reset-password", { body: { token, new_password: "new-password-Zq8!" } });
    expect(reset.status).toBe(204);
    // Redelivery adds nothing: a little later there is still one e-mail to this address.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(smtp.received.filter((m) => m.to.includes(email))).toHaveLength(1);
    // The logs were captured (the refused try was logged, without the message) and hold neither secret.
    expect(logLines.some((l) => l.includes("could not send an e-mail") && l.includes("451"))).toBe(true);
    const all = logLines.join("\n");
    expect(all).not.toContain(token);
    expect(all).not.toContain(SMTP_PASSWORD);
  });
});

describe("scan outcomes and the in-app list", () => {
  it("a failed scan reaches its team's developers and admins in the app and by e-mail, not its viewers or outsiders", async () => {
    const t = await team();
    const dev = await person(t, "developer");
    const lead = await person(t, "team_admin");
    const viewer = await person(t, "viewer");
    const outsider = await person(await team(), "developer");
    const { projectId, scanId } = await failedScan(t, dev);

    const mail = await smtp.waitFor(mailTo(lead.email, /scan failed/i));
    expect(mail.parsed.text).toContain(`https://portal.example.com/projects/${projectId}/scans/${scanId}`);
    expect(mail.parsed.text).toMatch(/No SBOM/);
    await smtp.waitFor(mailTo(dev.email, /scan failed/i));

    const mine = await eventually(
      () => list(dev),
      (r) => itemsOf(r).length > 0,
    );
    expect(mine.status).toBe(200);
    expect(mine.json).toMatchObject({ total: 1, page: 1, page_size: 20, unread_count: 1 });
    const item = itemsOf(mine)[0]!;
    expect(item).toMatchObject({
      kind: "scan.failed",
      severity: "medium",
      project_id: projectId,
      scan_id: scanId,
      team_id: t,
      link: `/projects/${projectId}/scans/${scanId}`,
      is_read: false,
      read_at: null,
    });
    expect((await list(lead)).json).toMatchObject({ total: 1, unread_count: 1 });
    expect((await list(viewer)).json).toMatchObject({ total: 0, unread_count: 0, items: [] });
    expect((await list(outsider)).json).toMatchObject({ total: 0, unread_count: 0 });
    expect(smtp.received.some((m) => m.to.includes(viewer.email) || m.to.includes(outsider.email))).toBe(false);

    // Each person sees only their own: another's id is 404, for reading as for marking.
    const id = item.id as string;
    const theirs = await request("PATCH", `/v1/notifications/${id}/read`, { bearer: outsider.bearer });
    expect(theirs.status).toBe(404);
    expect(theirs.contentType).toMatch(/application\/problem\+json/);
    expect((await request("PATCH", `/v1/notifications/${randomUUID()}/read`, { bearer: dev.bearer })).status).toBe(404);
    expect((await request("PATCH", "/v1/notifications/not-a-uuid/read", { bearer: dev.bearer })).status).toBe(422);

    // Read one, idempotently: the first read_at stays.
    const first = await request("PATCH", `/v1/notifications/${id}/read`, { bearer: dev.bearer });
    expect(first.json).toMatchObject({ id, is_read: true, read_at: expect.any(String) });
    const again = await request("PATCH", `/v1/notifications/${id}/read`, { bearer: dev.bearer });
    expect(again.status).toBe(200);
    expect(again.json.read_at).toBe(first.json.read_at);
    expect((await request("GET", "/v1/notifications/unread-count", { bearer: dev.bearer })).json).toEqual({ count: 0 });
    expect((await list(dev, "?unread_only=true")).json).toMatchObject({ total: 0, unread_count: 0 });
    expect((await list(dev)).json).toMatchObject({ total: 1, unread_count: 0 });
    // The team_admin's copy is untouched by the developer's read.
    expect((await request("GET", "/v1/notifications/unread-count", { bearer: lead.bearer })).json).toEqual({
      count: 1,
    });

    // Read all.
    await failedScan(t, dev);
    await eventually(
      () => list(lead),
      (r) => r.json.unread_count === 2,
    );
    const marked = await request("PATCH", "/v1/notifications/read-all", { bearer: lead.bearer });
    expect(marked.json).toEqual({ marked: 2 });
    expect((await request("PATCH", "/v1/notifications/read-all", { bearer: lead.bearer })).json).toEqual({ marked: 0 });
    expect((await list(lead)).json).toMatchObject({ total: 2, unread_count: 0 });
  });

  it("pages with page_size up to 200 and refuses more, and refuses anonymous callers", async () => {
    const t = await team();
    const dev = await person(t, "developer");
    await failedScan(t, dev);
    await failedScan(t, dev);
    await eventually(
      () => list(dev),
      (r) => r.json.total === 2,
    );
    const page = await list(dev, "?page_size=1&page=2");
    expect(page.json).toMatchObject({ total: 2, page: 2, page_size: 1, unread_count: 2 });
    expect(itemsOf(page)).toHaveLength(1);
    expect((await list(dev, "?page_size=200")).status).toBe(200);
    const tooMany = await list(dev, "?page_size=201");
    expect(tooMany.status).toBe(422);
    expect(tooMany.contentType).toMatch(/application\/problem\+json/);
    expect((await request("GET", "/v1/notifications")).status).toBe(401);
  });
});

describe("notification preferences", () => {
  it("answers every tunable kind with its defaults, changes them by PATCH and PUT, and e-mail off stops the e-mail", async () => {
    const t = await team();
    const dev = await person(t, "developer");
    const quiet = await person(t, "developer");
    const path = "/v1/users/me/notification-prefs";
    const defaults = await request("GET", path, { bearer: quiet.bearer });
    expect(defaults.status).toBe(200);
    const kinds = defaults.json.kinds as Record<string, { in_app: boolean; email: boolean }>;
    expect(kinds["scan.failed"]).toEqual({ in_app: true, email: true });
    expect(kinds["scan.succeeded"]).toEqual({ in_app: true, email: false });
    expect(kinds["account.password_reset"]).toBeUndefined();

    const patched = await request("PATCH", path, {
      bearer: quiet.bearer,
      body: { kinds: { "scan.failed": { email: false } } },
    });
    expect(patched.status).toBe(200);
    expect((patched.json.kinds as typeof kinds)["scan.failed"]).toEqual({ in_app: true, email: false });
    const unknown = await request("PATCH", path, {
      bearer: quiet.bearer,
      body: { kinds: { "nope.kind": { email: true } } },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.contentType).toMatch(/application\/problem\+json/);
    expect(
      (
        await request("PATCH", path, {
          bearer: quiet.bearer,
          body: { kinds: { "account.password_reset": { email: false } } },
        })
      ).status,
    ).toBe(422);

    await failedScan(t, dev);
    await smtp.waitFor(mailTo(dev.email, /scan failed/i));
    // The quiet developer still gets the in-app notification, and no e-mail.
    await eventually(
      () => list(quiet),
      (r) => r.json.total === 1,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    expect(smtp.received.some((m) => m.to.includes(quiet.email))).toBe(false);

    // PUT replaces: what it does not name goes back to its default.
    const put = await request("PUT", path, {
      bearer: quiet.bearer,
      body: { kinds: { "scan.succeeded": { email: true } } },
    });
    expect(put.json.kinds).toMatchObject({
      "scan.failed": { in_app: true, email: true },
      "scan.succeeded": { in_app: true, email: true },
    });
    expect((await request("GET", path, { bearer: quiet.bearer })).json).toEqual(put.json);
    expect(put.json.email_digest).toBe("each");
  });

  it("holds a daily-digest person's e-mails for one digest, while the in-app list and others' e-mails go on", async () => {
    const t = await team();
    const dev = await person(t, "developer");
    const digested = await person(t, "team_admin");
    const path = "/v1/users/me/notification-prefs";
    expect((await request("GET", path, { bearer: digested.bearer })).json.email_digest).toBe("each");
    const bad = await request("PATCH", path, { bearer: digested.bearer, body: { email_digest: "hourly" } });
    expect(bad.status).toBe(422);
    const daily = await request("PATCH", path, { bearer: digested.bearer, body: { email_digest: "daily" } });
    expect(daily.status).toBe(200);
    expect(daily.json.email_digest).toBe("daily");
    // PATCH of kinds alone keeps the digest.
    const kindsOnly = await request("PATCH", path, {
      bearer: digested.bearer,
      body: { kinds: { "scan.succeeded": { in_app: true } } },
    });
    expect(kindsOnly.json.email_digest).toBe("daily");

    const { projectId } = await failedScan(t, dev);
    await smtp.waitFor(mailTo(dev.email, /scan failed/i));
    const digest = await smtp.waitFor(mailTo(digested.email, /your sca portal digest: 1 notification$/i));
    expect(digest.parsed.text).toContain("[medium] Scan failed");
    expect(digest.parsed.text).toContain(`https://portal.example.com/projects/${projectId}/scans/`);
    // In the app as usual, and no e-mail of its own, nor a second digest.
    expect(itemsOf(await list(digested)).map((n) => n.kind)).toEqual(["scan.failed"]);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(smtp.received.filter((m) => m.to.includes(digested.email))).toHaveLength(1);

    // PUT without email_digest goes back to one e-mail each.
    expect((await request("PUT", path, { bearer: digested.bearer, body: {} })).json.email_digest).toBe("each");
  });
});
