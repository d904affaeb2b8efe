// A real scan feeding the project fields, a person's scan_count and the overview, end to end: identity, projects,
// scan-orchestrator and scanner-runner (started by name, one topic prefix and one artefact directory, as in a
// deployment) behind a real gateway. An SBOM is uploaded, scanned and ingested; the scan's events reach projects
// and identity through Kafka.
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { closeTogether, callAs, fixturesOf, sharedDir, startService, uniqueName, type TestService } from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";

const SBOM = join(sharedDir(), "data", "sbom", "cyclonedx", "juice-shop-cyclonedx-npm.cdx-1.7.json");

let dir: string;
let identity: TestService;
let projects: TestService;
let scans: TestService;
let runner: TestService;
let gateway: TestGateway;
let token: (userId: string) => Promise<string>;
let account: (name: string, superAdmin?: boolean) => Promise<string>;

interface Reply {
  status: number;
  json: Record<string, unknown>;
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
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function team(): Promise<string> {
  const slug = `team-${randomUUID().slice(0, 8)}`;
  const { team: t } = await identity
    .client(DirectoryService)
    .createTeam({ name: `Team ${slug}`, slug }, await callAs.superAdmin(randomUUID()));
  return t!.id;
}

async function person(roles: [string, string][]): Promise<{ id: string; token: string }> {
  const id = await account("Test Person");
  const admin = await callAs.superAdmin(randomUUID());
  for (const [teamId, role] of roles)
    await identity.client(DirectoryService).addTeamMember({ teamId, userId: id, role }, admin);
  return { id, token: await token(id) };
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-overview-"));
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const KAFKA_TOPIC_PREFIX = `${uniqueName("overview_stack")}.`;
  const shared = { KAFKA_TOPIC_PREFIX, ARTEFACT_DIR: dir };
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  projects = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url!, ...shared } });
  scans = await startService("scan-orchestrator", { env: { PROJECTS_RPC_URL: projects.url!, ...shared } });
  runner = await startService("scanner-runner", { env: { PROJECTS_RPC_URL: projects.url!, ...shared } });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { projects: projects.url!, "scan-orchestrator": scans.url! },
    env: { ARTEFACT_DIR: dir },
  });
  const fixtures = await fixturesOf("identity");
  account = (name, superAdmin = false) => fixtures.user(identity.orm, { fullName: name, superAdmin });
  token = (userId) => fixtures.accessToken(userId);
}, 180_000);

afterAll(async () => {
  await closeTogether([gateway, runner, scans, projects, identity]);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 120_000);

describe("a scanned project", () => {
  it("has its scan-fed fields, a person's scan_count and an overview from the real scan", async () => {
    const t = await team();
    const dev = await person([[t, "developer"]]);
    const created = await request("POST", "/v1/projects", {
      bearer: dev.token,
      body: { name: "Juice", slug: `juice-${randomUUID().slice(0, 6)}`, team_id: t, visibility: "organization" },
    });
    expect(created.status).toBe(201);
    const projectId = created.json.id as string;
    const path = `/v1/projects/${projectId}/overview`;

    // Before any scan: zero figures, nothing known wrong, no scans.
    const empty = await request("GET", path, { bearer: dev.token });
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({
      component_outcome: { with_known_issues: 0, without_known_issues: 0 },
      current_user_role: "developer",
      eol_count: 0,
      has_git_credential: false,
      last_scan_at: null,
      last_succeeded_scan_at: null,
      license_distribution: { allowed: 0, conditional: 0, forbidden: 0, uncategorized: 0 },
      license_score: 100,
      malicious_count: 0,
      outdated_count: 0,
      project_id: projectId,
      project_name: "Juice",
      recent_scans: [],
      risk_score: 0,
      security_score: 100,
      severity_distribution: { critical: 0, high: 0, medium: 0, low: 0, info: 0, unknown: 0 },
      total_components: 0,
    });

    const upload = await fetch(`${gateway.origin}/v1/projects/${projectId}/sbom-uploads`, {
      method: "POST",
      headers: { authorization: `Bearer ${dev.token}`, "content-type": "application/vnd.cyclonedx+json" },
      body: await readFile(SBOM),
    });
    expect(upload.status).toBe(201);
    const { upload_id } = (await upload.json()) as { upload_id: string };
    const scan = await request("POST", `/v1/projects/${projectId}/scans`, {
      bearer: dev.token,
      body: { kind: "sbom", sbom_upload_id: upload_id, metadata: { release: "17.0" } },
    });
    expect(scan.status).toBe(202);
    const scanId = scan.json.id as string;
    const finished = await eventually(
      () => request("GET", `/v1/scans/${scanId}`, { bearer: dev.token }),
      (r) => ["succeeded", "failed"].includes(r.json.status as string),
      "the scan ends",
    );
    expect(finished.json).toMatchObject({ status: "succeeded" });

    const components = await request("GET", `/v1/projects/${projectId}/components?limit=1`, { bearer: dev.token });
    const total = components.json.total as number;
    expect(total).toBeGreaterThan(100);

    // The project's fields follow the scan's events.
    const project = await eventually(
      () => request("GET", `/v1/projects/${projectId}`, { bearer: dev.token }),
      (r) => r.json.latest_scan_status === "succeeded",
      "projects hears of the success",
    );
    expect(project.json).toMatchObject({
      latest_scan_id: scanId,
      scan_count: 1,
      release_count: 1,
      last_scan_at: finished.json.created_at,
      license_category_summary: { uncategorized: total },
    });

    // The person's scan_count follows the scan's creation.
    const admin = await token(await account("Admin", true));
    const user = await eventually(
      () => request("GET", `/v1/admin/users/${dev.id}`, { bearer: admin }),
      (r) => r.json.scan_count === 1,
      "identity counts the scan",
    );
    expect(user.json.scan_count).toBe(1);

    // The scan matched the SBOM against the shipped advisories: the components with findings (read through the
    // findings list, another path than the overview's) are the ones with known issues, and the security score follows
    // docs/projects.md's formula over the severity distribution.
    const findings = await request("GET", `/v1/projects/${projectId}/vulnerabilities?limit=500`, { bearer: dev.token });
    expect(findings.status).toBe(200);
    const items = findings.json.items as { component_id: string; severity: string }[];
    expect(findings.json.total).toBe(items.length);
    const vulnerableIds = new Set(items.filter((f) => f.severity !== "info").map((f) => f.component_id));
    const vulnerable = vulnerableIds.size;
    expect(vulnerable).toBeGreaterThan(0);
    // The enrichment stage's states (docs/enrichment-feeds.md), read through the component list's filters.
    const flagged = async (filter: string) =>
      (
        (await request("GET", `/v1/projects/${projectId}/components?limit=500&${filter}=true`, { bearer: dev.token }))
          .json.items as { component_id: string }[]
      ).map((c) => c.component_id);
    const eolIds = await flagged("eol");
    const maliciousIds = await flagged("malicious");
    const outdatedIds = await flagged("outdated");
    const withIssues = new Set([...vulnerableIds, ...eolIds, ...maliciousIds]).size;

    // The overview of the newest snapshot, of the scan and of its release.
    const overview = await request("GET", path, { bearer: dev.token });
    expect(overview.status).toBe(200);
    const d = overview.json.severity_distribution as Record<string, number>;
    expect(d.critical! + d.high! + d.medium! + d.low! + d.unknown!).toBe(vulnerable);
    expect(project.json.severity_summary).toEqual(Object.fromEntries(Object.entries(d).filter(([, n]) => n > 0)));
    const security = Math.max(
      0,
      100 -
        (10 * d.critical! + 5 * d.high! + 3 * d.medium! + d.low! + 5 * d.unknown!) -
        3 * eolIds.length -
        100 * maliciousIds.length,
    );
    expect(overview.json).toMatchObject({
      component_outcome: { with_known_issues: withIssues, without_known_issues: total - withIssues },
      current_user_role: "developer",
      last_scan_at: finished.json.created_at,
      last_succeeded_scan_at: finished.json.completed_at,
      license_distribution: { allowed: 0, conditional: 0, forbidden: 0, uncategorized: total },
      total_components: total,
      security_score: security,
      license_score: 100,
      risk_score: 100 - security,
      eol_count: eolIds.length,
      // The test kit turns the registry lookup off: nothing is assessed as outdated.
      outdated_count: 0,
      malicious_count: maliciousIds.length,
    });
    expect(outdatedIds).toEqual([]);
    const recent = overview.json.recent_scans as Record<string, unknown>[];
    expect(recent).toHaveLength(1);
    expect(recent[0]).toMatchObject({ id: scanId, status: "succeeded", release: "17.0", project_id: projectId });
    for (const query of [`?scan_id=${scanId}`, "?release=17.0", `?release=%2017.0%20&scan_id=${scanId}`])
      expect((await request("GET", path + query, { bearer: dev.token })).json).toMatchObject({
        total_components: total,
      });

    // A scan_id or release the project has no succeeded scan of: 404; a malformed scan_id: 422.
    for (const query of [`?scan_id=${randomUUID()}`, "?release=18.0"])
      expect((await request("GET", path + query, { bearer: dev.token })).status).toBe(404);
    expect((await request("GET", `${path}?scan_id=nope`, { bearer: dev.token })).status).toBe(422);

    // A super_admin: role super_admin. An organization reader (another team of the organization): the figures, no
    // role on the team, no scans. Someone without any reach: 404, as for no project; no credentials: 401.
    expect((await request("GET", path, { bearer: admin })).json).toMatchObject({ current_user_role: "super_admin" });
    const reader = await person([[await team(), "viewer"]]);
    expect((await request("GET", path, { bearer: reader.token })).json).toMatchObject({
      current_user_role: null,
      recent_scans: [],
      total_components: total,
    });
    const stranger = await account("Stranger");
    const hidden = await request("GET", path, { bearer: await token(stranger) });
    expect(hidden.status).toBe(404);
    expect((await request("GET", `/v1/projects/${randomUUID()}/overview`, { bearer: dev.token })).status).toBe(404);
    expect((await request("GET", path)).status).toBe(401);
  }, 180_000);
});
