// The scan routes end to end: a real identity, projects and scan-orchestrator behind a real gateway (the test kit
// starts each by name; one topic prefix, as in a deployment), real PostgreSQL, Redis and Kafka.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { TOPICS } from "@sca/kafka";
import { ScanJobSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import {
  closeTogether,
  callAs,
  EventReader,
  fixturesOf,
  startService,
  uniqueName,
  type TestService,
} from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";

/** The SBOM cap of this gateway (the key's floor is 1 KiB). */
const SBOM_CAP = 4096;

let identity: TestService;
let projects: TestService;
let scans: TestService;
let gateway: TestGateway;
let gatewayAnswers: string;
let lane: EventReader;
let token: (userId: string) => Promise<string>;
let account: (name: string, superAdmin?: boolean) => Promise<string>;

interface Reply {
  status: number;
  contentType: string;
  json: Record<string, unknown>;
  headers: Headers;
}

async function request(method: string, path: string, opts: { bearer?: string; body?: unknown } = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${gateway.origin}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  const contentType = res.headers.get("content-type") ?? "";
  return {
    status: res.status,
    contentType,
    headers: res.headers,
    json: /json/.test(contentType) && text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

async function team(): Promise<string> {
  const slug = `team-${randomUUID().slice(0, 8)}`;
  const { team: t } = await identity
    .client(DirectoryService)
    .createTeam({ name: `Team ${slug}`, slug }, await callAs.superAdmin(randomUUID()));
  return t!.id;
}

async function person(roles: [string, string][]): Promise<string> {
  const id = await account("Test Person");
  const admin = await callAs.superAdmin(randomUUID());
  for (const [teamId, role] of roles)
    await identity.client(DirectoryService).addTeamMember({ teamId, userId: id, role }, admin);
  return token(id);
}

async function project(teamId: string, bearer: string): Promise<string> {
  const slug = `p-${randomUUID().slice(0, 8)}`;
  const res = await request("POST", "/v1/projects", { bearer, body: { name: `P ${slug}`, slug, team_id: teamId } });
  expect(res.status).toBe(201);
  return res.json.id as string;
}

beforeAll(async () => {
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  gatewayAnswers = answerNamespace;
  const KAFKA_TOPIC_PREFIX = `${uniqueName("scans_stack")}.`;
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  projects = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX } });
  scans = await startService("scan-orchestrator", {
    env: { PROJECTS_RPC_URL: projects.url!, KAFKA_TOPIC_PREFIX, SCAN_MAX_CONCURRENT_PER_TEAM: "1" },
  });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { projects: projects.url!, "scan-orchestrator": scans.url! },
    env: { SBOM_UPLOAD_MAX_BYTES: String(SBOM_CAP) },
  });
  lane = await EventReader.start(scans.kafka!, TOPICS.scanJobsManual);
  const fixtures = await fixturesOf("identity");
  account = (name, superAdmin = false) => fixtures.user(identity.orm, { fullName: name, superAdmin });
  token = (userId) => fixtures.accessToken(userId);
}, 120_000);

afterAll(async () => {
  await lane?.stop();
  await closeTogether([gateway, scans, projects, identity]);
}, 120_000);

describe("demo read-only with the sandbox (DEMO_ALLOW_SANDBOX_SCANS)", () => {
  let demo: TestGateway;
  let sandbox: string;
  let other: string;
  let dev: string;
  beforeAll(async () => {
    const t = await team();
    dev = await person([[t, "developer"]]);
    sandbox = await project(t, dev);
    other = await project(t, dev);
    // The sandbox is named by the gateway's configuration, so this gateway starts once the project exists.
    demo = await startTestGateway({
      identity: { url: identity.url!, answerNamespace: gatewayAnswers },
      services: { projects: projects.url!, "scan-orchestrator": scans.url! },
      env: {
        DEMO_READ_ONLY: "true",
        DEMO_ALLOW_SANDBOX_SCANS: "true",
        DEMO_SANDBOX_PROJECT_ID: sandbox,
        DEMO_SANDBOX_SCAN_RATE_LIMIT: "2/hour",
      },
    });
  }, 60_000);
  afterAll(async () => {
    await demo?.close();
  });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${demo.origin}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${dev}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
  };

  it("starts source scans of the sandbox project only, a bounded number of them", async () => {
    const elsewhere = await post(`/v1/projects/${other}/scans`, { ref: "main" });
    expect(elsewhere).toMatchObject({ status: 403, json: { code: "demo_read_only" } });
    const image = await post(`/v1/projects/${sandbox}/scans`, { kind: "container", ref: "docker.io/library/alpine" });
    expect(image).toMatchObject({ status: 403, json: { code: "demo_read_only" } });
    const created = await post(`/v1/projects/${sandbox}/scans`, { ref: "main" });
    expect(created).toMatchObject({ status: 202, json: { project_id: sandbox, kind: "source", status: "queued" } });
    await lane.waitFor(ScanJobSchema, (j) => j.scanId === created.json.id);
    // Two requests an hour here, all visitors together: the third is refused by the sandbox's bucket (not the
    // team's concurrent-scan cap, whose problem carries retry_after_seconds).
    const bounded = await post(`/v1/projects/${sandbox}/scans`, { ref: "main" });
    expect(bounded).toMatchObject({ status: 429, json: { code: "rate_limited" } });
    expect(bounded.json.retry_after_seconds).toBeUndefined();
    expect(Number(bounded.headers.get("retry-after"))).toBeGreaterThan(60);
    // Everything else stays read-only.
    expect((await post(`/v1/projects`, { name: "x", slug: "x", team_id: sandbox })).status).toBe(403);
  });
});

describe("scan routes", () => {
  it("creates a scan (202 queued, its job on the manual lane), reads it and lists it", async () => {
    const t = await team();
    const dev = await person([[t, "developer"]]);
    const projectId = await project(t, dev);
    const created = await request("POST", `/v1/projects/${projectId}/scans`, {
      bearer: dev,
      body: { ref: "main", metadata: { release: "1.0.0" } },
    });
    expect(created.status).toBe(202);
    expect(created.json).toMatchObject({
      project_id: projectId,
      kind: "source",
      status: "queued",
      ref: "main",
      release: "1.0.0",
      progress_percent: 0,
      error_message: null,
    });
    const scanId = created.json.id as string;
    await lane.waitFor(ScanJobSchema, (j) => j.scanId === scanId);
    expect((await request("GET", `/v1/scans/${scanId}`, { bearer: dev })).json).toMatchObject({ id: scanId });
    const listed = await request("GET", `/v1/projects/${projectId}/scans?page_size=10`, { bearer: dev });
    expect(listed.json).toMatchObject({ total: 1, page: 1, page_size: 10, items: [{ id: scanId }] });
    const mine = await request("GET", `/v1/scans?project_id=${projectId}`, { bearer: dev });
    expect(mine.json).toMatchObject({ total: 1, items: [{ id: scanId }] });
    // The team's cap is 1 here: the next one waits.
    const capped = await request("POST", `/v1/projects/${projectId}/scans`, { bearer: dev, body: { ref: "dev" } });
    expect(capped.status).toBe(429);
    expect(capped.contentType).toMatch(/application\/problem\+json/);
    expect(capped.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(capped.json).toMatchObject({ code: "rate_limited", retry_after_seconds: expect.any(Number) });
  });

  it("fails a sbom scan without an upload at once", async () => {
    const t = await team();
    const dev = await person([[t, "developer"]]);
    const projectId = await project(t, dev);
    const created = await request("POST", `/v1/projects/${projectId}/scans`, { bearer: dev, body: { kind: "sbom" } });
    expect(created.status).toBe(202);
    expect(created.json).toMatchObject({ status: "failed", error_message: expect.stringMatching(/No SBOM/) });
  });

  it("refuses viewers and outsiders, hides other teams' scans, and answers problems for bad bodies", async () => {
    const t = await team();
    const dev = await person([[t, "developer"]]);
    const viewer = await person([[t, "viewer"]]);
    const outsider = await person([[await team(), "team_admin"]]);
    const projectId = await project(t, dev);
    expect((await request("POST", `/v1/projects/${projectId}/scans`, { bearer: viewer, body: {} })).status).toBe(403);
    expect([403, 404]).toContain(
      (await request("POST", `/v1/projects/${projectId}/scans`, { bearer: outsider, body: {} })).status,
    );
    const scanId = (await request("POST", `/v1/projects/${projectId}/scans`, { bearer: dev, body: {} })).json.id;
    expect((await request("GET", `/v1/scans/${scanId as string}`, { bearer: outsider })).status).toBe(404);
    const bad = await request("POST", `/v1/projects/${projectId}/scans`, { bearer: dev, body: { kind: "binary" } });
    expect(bad.status).toBe(422);
    expect(bad.contentType).toMatch(/application\/problem\+json/);
    expect((await request("GET", "/v1/admin/scans", { bearer: dev })).status).toBe(404);
  });

  it("answers a batch row by row (207) and the admin queue", async () => {
    const t = await team();
    const dev = await person([[t, "developer"]]);
    const [p1, p2] = [await project(t, dev), await project(t, dev)];
    const batch = await request("POST", "/v1/scans:batch", {
      bearer: dev,
      body: { project_ids: [p1, p1, p2, "x"], ref: "main" },
    });
    expect(batch.status).toBe(207);
    expect(batch.json).toMatchObject({
      total: 4,
      created: 1,
      already_existed: 1,
      rows: [
        { status: "created" },
        { status: "already_exists" },
        { status: "rate_limited", retry_after_seconds: expect.any(Number) },
        { status: "invalid" },
      ],
    });
    const admin = await token(await account("Admin", true));
    const queue = await request("GET", `/v1/admin/scans?project=${p1}&status=queued`, { bearer: admin });
    expect(queue.json).toMatchObject({ total: 1, items: [{ project_id: p1 }] });
    const scanId = (queue.json.items as { id: string }[])[0]!.id;
    const cancelled = await request("POST", `/v1/admin/scans/${scanId}/cancel`, { bearer: admin });
    expect(cancelled.json).toMatchObject({ status: "cancelled" });
  });
});

describe("uploads", () => {
  const sbom = JSON.stringify({ bomFormat: "CycloneDX", specVersion: "1.5", components: [] });
  const upload = (projectId: string, bearer: string, body: RequestInit["body"], contentType?: string) =>
    fetch(`${gateway.origin}/v1/projects/${projectId}/sbom-uploads`, {
      method: "POST",
      headers: { authorization: `Bearer ${bearer}`, ...(contentType ? { "content-type": contentType } : {}) },
      body,
      duplex: "half",
    });

  it("takes a raw JSON SBOM (201) that a sbom scan then names, and a multipart one", async () => {
    const t = await team();
    const dev = await person([[t, "developer"]]);
    const projectId = await project(t, dev);
    const raw = await upload(projectId, dev, sbom, "application/vnd.cyclonedx+json");
    expect(raw.status).toBe(201);
    const uploaded = (await raw.json()) as Record<string, unknown>;
    expect(uploaded).toMatchObject({
      size_bytes: Buffer.byteLength(sbom),
      media_type: "application/vnd.cyclonedx+json",
      file_name: null,
    });
    const created = await request("POST", `/v1/projects/${projectId}/scans`, {
      bearer: dev,
      body: { kind: "sbom", sbom_upload_id: uploaded.upload_id },
    });
    expect(created.json).toMatchObject({ status: "queued", kind: "sbom" });
    const [job] = await lane.waitFor(ScanJobSchema, (j) => j.scanId === created.json.id);
    expect(job!.sbom).toMatchObject({ sizeBytes: BigInt(Buffer.byteLength(sbom)), sha256: uploaded.sha256 });

    const form = new FormData();
    form.append("note", "ignored");
    form.append("file", new Blob([sbom], { type: "application/json" }), "bom.json");
    const multipart = await upload(projectId, dev, form);
    expect(multipart.status).toBe(201);
    expect(await multipart.json()).toMatchObject({ file_name: "bom.json", media_type: "application/json" });

    const archive = new FormData();
    archive.append("upload", new Blob([Buffer.from("PK\u0005\u0006" + "\u0000".repeat(18))]), "src.zip");
    const archived = await fetch(`${gateway.origin}/v1/projects/${projectId}/source-archives`, {
      method: "POST",
      headers: { authorization: `Bearer ${dev}` },
      body: archive,
    });
    expect(archived.status).toBe(201);
    expect(await archived.json()).toMatchObject({ archive_id: expect.any(String) });
  });

  it("answers 413 past the cap (declared or streamed), 415, malformed multipart and a viewer as problems", async () => {
    const t = await team();
    const dev = await person([[t, "developer"]]);
    const viewer = await person([[t, "viewer"]]);
    const projectId = await project(t, dev);
    const big = "x".repeat(SBOM_CAP + 1);
    const declared = await upload(projectId, dev, big, "application/json");
    expect(declared.status).toBe(413);
    expect(declared.headers.get("content-type")).toMatch(/application\/problem\+json/);
    // Chunked, no Content-Length: the store stops at the cap.
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode("y".repeat(SBOM_CAP / 2)));
        controller.close();
      },
    });
    expect((await upload(projectId, dev, chunks, "application/json")).status).toBe(413);
    const form = new FormData();
    form.append("file", new Blob([big], { type: "application/json" }), "big.json");
    expect((await upload(projectId, dev, form)).status).toBe(413);
    expect((await upload(projectId, dev, "png", "image/png")).status).toBe(415);
    const malformed = await upload(projectId, dev, "--nope\r\n", "multipart/form-data; boundary=abc");
    expect([400, 422]).toContain(malformed.status);
    expect(malformed.headers.get("content-type")).toMatch(/application\/problem\+json/);
    expect((await upload(projectId, viewer, sbom, "application/json")).status).toBe(403);
  });
});
