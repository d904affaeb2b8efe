// Repository webhooks end to end (docs/scm.md): a real identity, projects and scan-orchestrator behind a real gateway.
// Projects' webhook secrets are issued through the API; host A's payloads are signed with @octokit/webhooks-methods
// (what the hosts' own libraries compute), host B's carry the token. No scanner-runner: a queued scan is the answer.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { sign } from "@octokit/webhooks-methods";
import { closeTogether, fixturesOf, startService, uniqueName, type TestService } from "@sca/testkit";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { callAs } from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { gatewayRequest, type GatewayRequest } from "./support/gateway-request.ts";

const MiB = 1024 * 1024;

let identity: TestService;
let projects: TestService;
let scans: TestService;
let gateway: TestGateway;
let request: GatewayRequest;
let teamId: string;
let admin: string;
let developer: string;

interface Hook {
  status: number;
  json: Record<string, unknown>;
  headers: Headers;
}

async function deliver(
  origin: string,
  provider: "scm_a" | "scm_b",
  body: string | Uint8Array | ReadableStream<Uint8Array>,
  headers: Record<string, string>,
): Promise<Hook> {
  const res = await fetch(`${origin}/v1/webhooks/${provider}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Host A: X-GitHub-Event, X-GitHub-Delivery, X-Hub-Signature-256 over the exact bytes sent. */
async function hostA(event: string, payload: unknown, secret: string | null, delivery = randomUUID()): Promise<Hook> {
  const body = JSON.stringify(payload);
  return deliver(gateway.origin, "scm_a", body, {
    "x-github-event": event,
    "x-github-delivery": delivery,
    ...(secret === null ? {} : { "x-hub-signature-256": await sign(secret, body) }),
  });
}

/** Host B: X-Gitlab-Event, X-Gitlab-Event-UUID and the secret itself in X-Scm-Token. */
async function hostB(payload: unknown, token: string | null, delivery = randomUUID()): Promise<Hook> {
  return deliver(gateway.origin, "scm_b", JSON.stringify(payload), {
    "x-gitlab-event": "Push Hook",
    "x-gitlab-event-uuid": delivery,
    ...(token === null ? {} : { "x-scm-token": token }),
  });
}

/** A project whose git_url is a fresh repository of the example host. */
async function project(): Promise<{ id: string; repo: string; gitUrl: string }> {
  const slug = `p-${randomUUID().slice(0, 8)}`;
  const gitUrl = `https://git.example.test/acme/${slug}.git`;
  const res = await request("POST", "/v1/projects", {
    bearer: admin,
    body: { name: `P ${slug}`, slug, team_id: teamId, git_url: gitUrl, default_branch: "main" },
  });
  expect(res.status).toBe(201);
  return { id: res.json.id as string, repo: `acme/${slug}`, gitUrl };
}

async function issue(projectId: string, provider: "scm_a" | "scm_b"): Promise<Record<string, unknown>> {
  const res = await request("POST", `/v1/projects/${projectId}/webhook`, { bearer: admin, body: { provider } });
  expect(res.status).toBe(201);
  return res.json;
}

/** Host A's push payload (the fields we read, with some we do not). */
const pushA = (repo: string, ref = "refs/heads/main") => ({
  ref,
  before: "0".repeat(40),
  after: "a".repeat(40),
  repository: {
    full_name: repo,
    clone_url: `https://git.example.test/${repo}.git`,
    html_url: `https://git.example.test/${repo}`,
    ssh_url: `git@git.example.test:${repo}.git`,
  },
  pusher: { name: "someone" },
});

/** Host B's push payload. */
const pushB = (repo: string, ref = "refs/heads/main") => ({
  object_kind: "push",
  ref,
  before: "0".repeat(40),
  after: "b".repeat(40),
  checkout_sha: "b".repeat(40),
  project: {
    path_with_namespace: repo,
    git_http_url: `https://git.example.test/${repo}.git`,
    git_ssh_url: `git@git.example.test:${repo}.git`,
    web_url: `https://git.example.test/${repo}`,
  },
});

async function scanOf(scanId: string): Promise<Record<string, unknown>> {
  const res = await request("GET", `/v1/scans/${scanId}`, { bearer: admin });
  expect(res.status).toBe(200);
  return res.json;
}

beforeAll(async () => {
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const KAFKA_TOPIC_PREFIX = `${uniqueName("scm_webhooks")}.`;
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  projects = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX } });
  // No worker takes the scans: they stay queued, so the team's cap is set out of the way.
  scans = await startService("scan-orchestrator", {
    env: { PROJECTS_RPC_URL: projects.url!, KAFKA_TOPIC_PREFIX, SCAN_MAX_CONCURRENT_PER_TEAM: "100" },
  });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { projects: projects.url!, "scan-orchestrator": scans.url! },
  });
  request = gatewayRequest(gateway.origin);
  const fixtures = await fixturesOf("identity");
  const superAdmin = await callAs.superAdmin(randomUUID());
  const slug = `team-${randomUUID().slice(0, 8)}`;
  const { team } = await identity.client(DirectoryService).createTeam({ name: `Team ${slug}`, slug }, superAdmin);
  teamId = team!.id;
  const person = async (role: string) => {
    const id = await fixtures.user(identity.orm, { fullName: `A ${role}` });
    await identity.client(DirectoryService).addTeamMember({ teamId, userId: id, role }, superAdmin);
    return fixtures.accessToken(id);
  };
  admin = await person("team_admin");
  developer = await person("developer");
}, 120_000);

afterAll(async () => {
  await closeTogether([gateway, scans, projects, identity]);
}, 120_000);

describe("project webhook secrets", () => {
  it("issues a secret once to a team admin, describes it without it, and replaces it at once", async () => {
    const p = await project();
    const before = await request("GET", `/v1/projects/${p.id}/webhook`, { bearer: admin });
    expect(before.json).toEqual({ configured: false, project_id: p.id, provider: null });
    const first = await issue(p.id, "scm_a");
    expect(first).toMatchObject({ project_id: p.id, provider: "scm_a", replaced_existing: false });
    expect(first.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(first.issued_at as string)).not.toBeNaN();
    const status = await request("GET", `/v1/projects/${p.id}/webhook`, { bearer: admin });
    expect(status.json).toEqual({ configured: true, project_id: p.id, provider: "scm_a" });
    expect(status.text).not.toContain(first.secret);

    expect((await hostA("push", pushA(p.repo), first.secret as string)).status).toBe(202);
    const second = await issue(p.id, "scm_a");
    expect(second).toMatchObject({ replaced_existing: true });
    expect(second.secret).not.toBe(first.secret);
    expect((await hostA("push", pushA(p.repo), first.secret as string)).status).toBe(401);
    expect((await hostA("push", pushA(p.repo), second.secret as string)).status).toBe(202);
  });

  it("refuses a developer (403), an unknown project (404) and an unknown provider (422)", async () => {
    const p = await project();
    const asDev = await request("POST", `/v1/projects/${p.id}/webhook`, {
      bearer: developer,
      body: { provider: "scm_a" },
    });
    expect(asDev.status).toBe(403);
    expect((await request("GET", `/v1/projects/${p.id}/webhook`, { bearer: developer })).status).toBe(403);
    const missing = await request("POST", `/v1/projects/${randomUUID()}/webhook`, {
      bearer: admin,
      body: { provider: "scm_a" },
    });
    expect(missing.status).toBe(404);
    const bad = await request("POST", `/v1/projects/${p.id}/webhook`, { bearer: admin, body: { provider: "svn" } });
    expect(bad.status).toBe(422);
    expect((await request("GET", `/v1/projects/${p.id}/webhook`)).status).toBe(401);
  });
});

describe("host A webhooks (scm_a)", () => {
  it("starts a source scan of the pushed ref (trigger webhook), once per delivery id", async () => {
    const p = await project();
    const { secret } = await issue(p.id, "scm_a");
    const delivery = randomUUID();
    const first = await hostA("push", pushA(p.repo, "refs/heads/feature/x"), secret as string, delivery);
    expect(first.status).toBe(202);
    expect(first.json).toMatchObject({ status: "queued", scans: [{ project_id: p.id, duplicate: false }] });
    const scanId = (first.json.scans as { scan_id: string }[])[0]!.scan_id;
    expect(await scanOf(scanId)).toMatchObject({
      project_id: p.id,
      kind: "source",
      status: "queued",
      trigger: "webhook",
      ref: "refs/heads/feature/x",
      requested_by_user_id: null,
    });
    // The host redelivers: the same scan, nothing new.
    const again = await hostA("push", pushA(p.repo, "refs/heads/feature/x"), secret as string, delivery);
    expect(again.json).toMatchObject({ status: "queued", scans: [{ scan_id: scanId, duplicate: true }] });
    const listed = await request("GET", `/v1/projects/${p.id}/scans`, { bearer: admin });
    expect(listed.json).toMatchObject({ total: 1 });
  });

  it("scans an opened pull request's head, keeping its number and base", async () => {
    const p = await project();
    const { secret } = await issue(p.id, "scm_a");
    const payload = {
      action: "opened",
      number: 7,
      pull_request: { number: 7, head: { ref: "fix" }, base: { ref: "main" } },
      repository: pushA(p.repo).repository,
    };
    const res = await hostA("pull_request", payload, secret as string);
    expect(res.status).toBe(202);
    const scan = await scanOf((res.json.scans as { scan_id: string }[])[0]!.scan_id);
    expect(scan).toMatchObject({
      ref: "refs/pull/7/head",
      trigger: "webhook",
      metadata: { webhook_event: "pull_request", pull_request_number: 7, base_ref: "refs/heads/main" },
    });
    const closed = await hostA("pull_request", { ...payload, action: "closed" }, secret as string);
    expect(closed.json).toEqual({ status: "ignored", reason: "pull_request closed", scans: [] });
  });

  it("acknowledges a ping and unknown events without starting anything", async () => {
    const p = await project();
    const { secret } = await issue(p.id, "scm_a");
    const ping = await hostA(
      "ping",
      { zen: "Keep it simple.", repository: pushA(p.repo).repository },
      secret as string,
    );
    expect(ping.status).toBe(202);
    expect(ping.json).toEqual({ status: "ignored", reason: "ping", scans: [] });
    const star = await hostA("star", { action: "created", repository: pushA(p.repo).repository }, secret as string);
    expect(star.json).toMatchObject({ status: "ignored", reason: "event star" });
    expect((await request("GET", `/v1/projects/${p.id}/scans`, { bearer: admin })).json).toMatchObject({ total: 0 });
  });

  it("refuses a wrong, missing or replayed signature (401), and a repository no project has (404)", async () => {
    const p = await project();
    const { secret } = await issue(p.id, "scm_a");
    const wrong = await hostA("push", pushA(p.repo), "not-the-secret");
    expect(wrong.status).toBe(401);
    expect(wrong.json).toMatchObject({ code: "unauthorized" });
    expect((await hostA("push", pushA(p.repo), null)).status).toBe(401);
    // A signature captured from one delivery does not carry another body.
    const signed = JSON.stringify(pushA(p.repo, "refs/heads/main"));
    const captured = await sign(secret as string, signed);
    const replayed = await deliver(gateway.origin, "scm_a", JSON.stringify(pushA(p.repo, "refs/heads/evil")), {
      "x-github-event": "push",
      "x-github-delivery": randomUUID(),
      "x-hub-signature-256": captured,
    });
    expect(replayed.status).toBe(401);
    const unknown = await hostA("push", pushA("acme/nobody-has-this"), secret as string);
    expect(unknown.status).toBe(404);
    expect((await request("GET", `/v1/projects/${p.id}/scans`, { bearer: admin })).json).toMatchObject({ total: 0 });
  });

  it("answers malformed JSON with 400 and an archived project with 409", async () => {
    const p = await project();
    const { secret } = await issue(p.id, "scm_a");
    const broken = '{"ref": "refs/heads/main",';
    const res = await deliver(gateway.origin, "scm_a", broken, {
      "x-github-event": "push",
      "x-hub-signature-256": await sign(secret as string, broken),
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: "malformed_json" });
    expect((await request("DELETE", `/v1/projects/${p.id}`, { bearer: admin })).status).toBeLessThan(300);
    const archived = await hostA("push", pushA(p.repo), secret as string);
    expect(archived.status).toBe(409);
    expect(archived.json).toMatchObject({ code: "project_archived" });
  });
});

describe("host B webhooks (scm_b)", () => {
  it("starts a scan with the project's token, refuses another project's token", async () => {
    const p = await project();
    const other = await project();
    const { secret } = await issue(p.id, "scm_b");
    const { secret: otherSecret } = await issue(other.id, "scm_b");
    const res = await hostB(pushB(p.repo, "refs/tags/v1.2.0"), secret as string);
    expect(res.status).toBe(202);
    const scan = await scanOf((res.json.scans as { scan_id: string }[])[0]!.scan_id);
    expect(scan).toMatchObject({ project_id: p.id, ref: "refs/tags/v1.2.0", trigger: "webhook" });
    const foreign = await hostB(pushB(p.repo), otherSecret as string);
    expect(foreign.status).toBe(401);
    expect((await hostB(pushB(p.repo), null)).status).toBe(401);
    // A host A secret is not a host B token.
    const a = await project();
    const { secret: aSecret } = await issue(a.id, "scm_a");
    expect((await hostB(pushB(a.repo), aSecret as string)).status).toBe(401);
  });

  it("scans an opened merge request's head", async () => {
    const p = await project();
    const { secret } = await issue(p.id, "scm_b");
    const payload = {
      object_kind: "merge_request",
      project: pushB(p.repo).project,
      object_attributes: { iid: 3, action: "open", source_branch: "fix", target_branch: "main" },
    };
    const res = await hostB(payload, secret as string);
    expect(res.status).toBe(202);
    const scan = await scanOf((res.json.scans as { scan_id: string }[])[0]!.scan_id);
    expect(scan).toMatchObject({ ref: "refs/merge-requests/3/head", metadata: { pull_request_number: 3 } });
  });
});

describe("webhook bodies past WEBHOOK_MAX_BODY_BYTES", () => {
  it("answers 413 to 2 MiB + 1 on both routes, declared or streamed, before any credential", async () => {
    const big = new Uint8Array(2 * MiB + 1).fill(0x20);
    for (const provider of ["scm_a", "scm_b"] as const) {
      const declared = await deliver(gateway.origin, provider, big, { "x-github-event": "push" });
      expect(declared.status).toBe(413);
      expect(declared.json).toMatchObject({ status: 413, code: "body_too_large", max_bytes: 2 * MiB });
      // Chunked, no Content-Length: refused when the count passes the cap.
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= big.length) return controller.close();
          const chunk = big.subarray(sent, sent + 256 * 1024);
          sent += chunk.length;
          controller.enqueue(chunk);
        },
      });
      const streamed = await deliver(gateway.origin, provider, stream, { "x-github-event": "push" });
      expect(streamed.status).toBe(413);
    }
    // At the cap exactly the body is read (and is not JSON here).
    const atCap = await deliver(gateway.origin, "scm_a", big.subarray(0, 2 * MiB), { "x-github-event": "push" });
    expect(atCap.status).toBe(400);
  });
});

describe("WEBHOOK_RATE_LIMIT", () => {
  it("answers 429 with Retry-After past the per-address limit", async () => {
    // A gateway of its own with a small limit, so the other tests' deliveries do not count.
    const limited = await startTestGateway({
      services: { projects: projects.url!, "scan-orchestrator": scans.url! },
      env: { WEBHOOK_RATE_LIMIT: "2/minute" },
    });
    try {
      const ping = () => deliver(limited.origin, "scm_a", JSON.stringify({ zen: "hi" }), { "x-github-event": "ping" });
      expect((await ping()).status).toBe(202);
      expect((await ping()).status).toBe(202);
      const refused = await ping();
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(refused.json).toMatchObject({ code: "rate_limited" });
    } finally {
      await limited.close();
    }
  });
});

describe("npm remediation dry-run", () => {
  it("answers every field for a manifest override and for none; persists nothing", async () => {
    const p = await project();
    const manifest = '{\n  "name": "x",\n  "dependencies": { "lodash": "^4.17.15" }\n}\n';
    const res = await request("POST", `/v1/projects/${p.id}/remediation/npm/dry-run`, {
      bearer: developer,
      body: { manifest },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      project_id: p.id,
      scan_id: null,
      ecosystem: "npm",
      manifest_source: "override",
      manifest_found: true,
      changed: false,
      recommendations: [],
      changes: [],
      warnings: [],
      notes: [expect.stringContaining("no scan")],
    });
    const none = await request("POST", `/v1/projects/${p.id}/remediation/npm/dry-run`, { bearer: developer });
    expect(none.json).toMatchObject({ manifest_source: "none", manifest_found: false, changed: false });
    expect(none.json).not.toHaveProperty("edited_manifest");
  });

  it("refuses a manifest that is not JSON (422), an unknown project (404) and no credential (401)", async () => {
    const p = await project();
    const bad = await request("POST", `/v1/projects/${p.id}/remediation/npm/dry-run`, {
      bearer: developer,
      body: { manifest: "{ not json" },
    });
    expect(bad.status).toBe(422);
    const missing = await request("POST", `/v1/projects/${randomUUID()}/remediation/npm/dry-run`, {
      bearer: developer,
      body: {},
    });
    expect(missing.status).toBe(404);
    expect((await request("POST", `/v1/projects/${p.id}/remediation/npm/dry-run`, { body: {} })).status).toBe(401);
  });
});
