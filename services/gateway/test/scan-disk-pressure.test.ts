// Disk pressure through the real settings (docs/scans.md, "Disk pressure"): a scan-orchestrator whose
// DISK_PRESSURE_MIN_FREE_BYTES is more than its artefact volume has free refuses new scans with 503 and a type
// ending /disk-pressure, a single scan and a whole batch (before any row), behind a real gateway.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, statfs } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { closeTogether, callAs, fixturesOf, startService, uniqueName, type TestService } from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";

let dir: string;
let identity: TestService;
let projects: TestService;
let scans: TestService;
let gateway: TestGateway;
let developer: string;
let projectId: string;

async function request(path: string, bearer: string, body: unknown) {
  const res = await fetch(`${gateway.origin}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    contentType: res.headers.get("content-type") ?? "",
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-disk-pressure-"));
  const volume = await statfs(dir);
  // One GiB more than the volume has free: the orchestrator's own reading of the same volume is under the floor.
  const floor = volume.bavail * volume.bsize + 1024 ** 3;
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const KAFKA_TOPIC_PREFIX = `${uniqueName("disk_pressure")}.`;
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  projects = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX } });
  scans = await startService("scan-orchestrator", {
    env: {
      PROJECTS_RPC_URL: projects.url!,
      KAFKA_TOPIC_PREFIX,
      ARTEFACT_DIR: dir,
      DISK_PRESSURE_MIN_FREE_BYTES: String(floor),
    },
  });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { projects: projects.url!, "scan-orchestrator": scans.url! },
  });
  const fixtures = await fixturesOf("identity");
  const slug = `team-${randomUUID().slice(0, 8)}`;
  const admin = await callAs.superAdmin(randomUUID());
  const { team } = await identity.client(DirectoryService).createTeam({ name: `Team ${slug}`, slug }, admin);
  const userId = await fixtures.user(identity.orm, { fullName: "Disk Person" });
  await identity.client(DirectoryService).addTeamMember({ teamId: team!.id, userId, role: "developer" }, admin);
  developer = await fixtures.accessToken(userId);
  const created = await request("/v1/projects", developer, { name: `P ${slug}`, slug, team_id: team!.id });
  expect(created.status).toBe(201);
  projectId = created.json.id as string;
}, 120_000);

afterAll(async () => {
  await closeTogether([gateway, scans, projects, identity]);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 120_000);

describe("disk pressure", () => {
  it("refuses a new scan with 503, type .../disk-pressure", async () => {
    const refused = await request(`/v1/projects/${projectId}/scans`, developer, { ref: "main" });
    expect(refused.status).toBe(503);
    expect(refused.contentType).toMatch(/application\/problem\+json/);
    expect(refused.json).toMatchObject({ status: 503, type: expect.stringMatching(/\/disk-pressure$/) });
    expect(refused.json.detail).toMatch(/free/);
  });

  it("refuses a whole batch with 503 before any row", async () => {
    const refused = await request("/v1/scans:batch", developer, { project_ids: [projectId], ref: "main" });
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ status: 503, type: expect.stringMatching(/\/disk-pressure$/) });
    expect(refused.json).not.toHaveProperty("rows");
    const listed = await fetch(`${gateway.origin}/v1/projects/${projectId}/scans`, {
      headers: { authorization: `Bearer ${developer}` },
    });
    expect(((await listed.json()) as { total: number }).total).toBe(0);
  });
});
