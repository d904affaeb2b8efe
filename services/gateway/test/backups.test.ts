// Backups and restore through a real gateway, identity, projects and admin (pg_dump and pg_restore against the
// test PostgreSQL): data made (projects, a scan's inventory and findings, a triage, audit entries), backed up,
// changed and deleted, then restored and read back exactly as it was, the audit hash chain verifying with the
// restore recorded right after the backup's entries. A corrupt, a truncated and a tampered archive, a missing
// confirmation and a missing length are refused with nothing changed; an automatic backup cannot be deleted.
// Each service keeps its own artefact directory and admin its own BACKUP_DIR (temporary): a backup copies the whole
// store, which must not be the one other test files share.
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { createLogger } from "@sca/log";
import { createRedis, PROJECT_WRITE_FENCES, writeFences } from "@sca/redis";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { VulnerabilityMatchService } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import {
  callAs,
  closeTogether,
  fixturesOf,
  ingestArtefact,
  startService,
  testServers,
  uniqueName,
  type ServiceFixtures,
  type TestService,
} from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { gatewayRequest, type GatewayRequest } from "./support/gateway-request.ts";

let identity: TestService;
let projects: TestService;
let admin: TestService;
let gateway: TestGateway;
let request: GatewayRequest;
let root: string;
let artefactDir: string;
let backupDir: string;
let token: string;
let developer: string;
let projectA: string;
let projectB: string;
let adminFixtures: ServiceFixtures["admin"];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "sca-gw-backups-"));
  artefactDir = join(root, "artefacts");
  backupDir = join(root, "backups");
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const KAFKA_TOPIC_PREFIX = `${uniqueName("backup_stack")}.`;
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  projects = await startService("projects", {
    env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX, ARTEFACT_DIR: artefactDir },
  });
  // Its own topic prefix: the log holds only what this file writes, so it can be compared entry by entry.
  admin = await startService("admin", {
    env: { ARTEFACT_DIR: artefactDir, BACKUP_DIR: backupDir, BACKUP_AUTO_EVERY_HOURS: "0", SERVICE_VERSION: "9.9.9" },
    seams: { schemas: { identity: identity.schema, projects: projects.schema } },
  });
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { projects: projects.url!, admin: admin.url! },
    env: { ARTEFACT_DIR: artefactDir },
  });
  request = gatewayRequest(gateway.origin);
  const people = await fixturesOf("identity");
  token = await people.accessToken(await people.user(identity.orm, { superAdmin: true }));
  const { team } = await identity
    .client(DirectoryService)
    .createTeam(
      { name: "Backups", slug: `backups-${randomUUID().slice(0, 6)}` },
      await callAs.superAdmin(randomUUID()),
    );
  const devId = await people.user(identity.orm);
  await identity
    .client(DirectoryService)
    .addTeamMember({ teamId: team!.id, userId: devId, role: "team_admin" }, await callAs.superAdmin(randomUUID()));
  developer = await people.accessToken(devId);
  const project = async (name: string) =>
    (
      await request("POST", "/v1/projects", {
        bearer: token,
        body: { name, slug: `${name.toLowerCase()}-${randomUUID().slice(0, 6)}`, team_id: team!.id },
      })
    ).json.id as string;
  projectA = await project("Alpha");
  projectB = await project("Bravo");
  const projectFixtures = await fixturesOf("projects");
  const runner = await callAs.service("scanner-runner");
  const scanId = await ingestArtefact(
    projects.client(InventoryService),
    new DirectoryArtefactStore(artefactDir),
    projectA,
    projectFixtures.findingsArtefact(),
    { caller: runner },
  );
  await projects
    .client(VulnerabilityMatchService)
    .recordScanMatches(projectFixtures.scanMatches(projectA, scanId), runner);
  adminFixtures = await fixturesOf("admin");
  await adminFixtures.auditEntries(admin.orm, 12, (i) => ({ action: "fixture.before", targetId: `before-${i}` }));
}, 120_000);

afterAll(async () => {
  await closeTogether([gateway, admin, projects, identity].filter(Boolean));
  if (root) await rm(root, { recursive: true, force: true });
});

type Finding = { id: string; vulnerability_id: string; version: number; status: string };

const findings = async () =>
  (await request("GET", `/v1/projects/${projectA}/vulnerabilities?limit=200`, { bearer: token })).json
    .items as Finding[];

const triage = async (f: Finding, status: string, justification: string) => {
  const r = await request("PATCH", `/v1/vulnerability_findings/${f.id}/status`, {
    bearer: developer,
    body: { status, justification, response: ["will_not_fix"] },
    headers: { "If-Match": `"${f.version}"` },
  });
  // The problem document, if any, shows in a failure.
  expect(r.status === 200 ? 200 : r.json).toBe(200);
};

/** What the test reads back: the projects, project A's findings, the whole audit log. */
async function portalState() {
  const list = await request("GET", "/v1/projects?page_size=200", { bearer: token });
  const audit = await request("GET", "/v1/admin/audit?page_size=200", { bearer: token });
  const files: string[] = [];
  for await (const listed of new DirectoryArtefactStore(artefactDir).list()) files.push(listed.key);
  return { projects: list.json.items, findings: await findings(), audit: audit.json.items as Audit[], files };
}

type Audit = { seq: number; action: string; hash: string; prev_hash: string; target_id: string | null };

async function taskDone(taskId: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await request("GET", `/v1/admin/backup-tasks/${taskId}`, { bearer: token });
    expect(r.status).toBe(200);
    if (r.json.state === "succeeded" || r.json.state === "failed") return r.json;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${String(r.json.state)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** POST /v1/admin/backup/restore with `archive` as the multipart field, and the headers given. */
async function restore(archive: Buffer, headers: Record<string, string> = { "X-Confirm-Restore": "yes" }) {
  const boundary = `b${randomUUID()}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="archive"; filename="backup.tar.gz"\r\n` +
        "Content-Type: application/gzip\r\n\r\n",
    ),
    archive,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await fetch(`${gateway.origin}/v1/admin/backup/restore`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": `multipart/form-data; boundary=${boundary}`,
      ...headers,
    },
    body,
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("backup and restore", () => {
  let before: Awaited<ReturnType<typeof portalState>>;
  let changed: Awaited<ReturnType<typeof portalState>>;
  let archive: Buffer;
  let name: string;

  it("takes a manual backup as a task and lists it", async () => {
    await triage((await findings())[0]!, "not_affected", "code_not_reachable");
    const created = await request("POST", "/v1/admin/backup", { bearer: token });
    expect(created.status).toBe(202);
    name = created.json.name as string;
    expect(name).toMatch(/^manual-\d{8}T\d{9}Z$/);
    const task = await taskDone(created.json.task_id as string);
    expect(task).toMatchObject({ kind: "backup", state: "succeeded", percent: 100, error: null, backup_name: name });
    before = await portalState();
    expect(before.findings.length).toBe(5);
    expect(before.audit[0]).toMatchObject({ action: "backup.created", target_id: name });
    const list = await request("GET", "/v1/admin/backup", { bearer: token });
    expect(list.json).toMatchObject({ total: 1, items: [{ name, kind: "manual", portal_version: "9.9.9" }] });
    expect((list.json.items as { size_bytes: number }[])[0]!.size_bytes).toBeGreaterThan(0);
  }, 90_000);

  it("downloads it as a tar.gz of its directory with the manifest's checksums", async () => {
    const res = await fetch(`${gateway.origin}/v1/admin/backup/${name}/download`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/gzip");
    archive = Buffer.from(await res.arrayBuffer());
    expect(archive.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const listing = execFileSync("tar", ["-tzf", "-"], { input: archive }).toString().split("\n");
    expect(listing).toEqual(expect.arrayContaining([`${name}/manifest.json`, `${name}/database.dump`]));
    expect(listing.some((p) => p.startsWith(`${name}/artefacts/`))).toBe(true);
    const missing = await request("GET", "/v1/admin/backup/manual-20000101T000000000Z/download", { bearer: token });
    expect(missing.status).toBe(404);
  }, 30_000);

  it("hides every backup route from anyone but a super_admin", async () => {
    expect((await request("GET", "/v1/admin/backup", { bearer: developer })).status).toBe(404);
    expect((await request("POST", "/v1/admin/backup", { bearer: developer })).status).toBe(404);
    expect((await request("DELETE", `/v1/admin/backup/${name}`, { bearer: developer })).status).toBe(404);
  });

  it("after changes, refuses a missing confirmation, a missing length and damaged archives, changing nothing", async () => {
    const untouched = (await findings()).find((f) => f.status !== "not_affected")!;
    await triage(untouched, "not_affected", "code_not_present");
    await request("DELETE", `/v1/projects/${projectB}`, { bearer: token });
    await request("POST", "/v1/projects", {
      bearer: token,
      body: { name: "Charlie", slug: `charlie-${randomUUID().slice(0, 6)}`, team_id: await teamOf(projectA) },
    });
    await adminFixtures.auditEntries(admin.orm, 3, (i) => ({ action: "fixture.after", targetId: `after-${i}` }));
    changed = await portalState();
    expect(changed.projects).not.toEqual(before.projects);
    expect(changed.findings).not.toEqual(before.findings);

    const unconfirmed = await restore(archive, {});
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.json.code).toBe("restore_not_confirmed");
    expect((await restore(archive, { "X-Confirm-Restore": "no" })).status).toBe(400);

    const chunked = await fetch(`${gateway.origin}/v1/admin/backup/restore`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "multipart/form-data; boundary=x",
        "X-Confirm-Restore": "yes",
      },
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode("--x--\r\n"));
          c.close();
        },
      }),
      duplex: "half",
    });
    expect(chunked.status).toBe(411);

    const truncated = await restore(archive.subarray(0, Math.floor(archive.length / 2)));
    expect(truncated.status).toBe(202);
    expect(await taskDone(truncated.json.task_id as string)).toMatchObject({
      kind: "restore",
      state: "failed",
      error: expect.stringContaining("not a complete tar.gz"),
    });

    const corrupt = Buffer.from(archive);
    corrupt[Math.floor(corrupt.length / 2)]! ^= 0xff;
    const corrupted = await restore(corrupt);
    expect(await taskDone(corrupted.json.task_id as string)).toMatchObject({ state: "failed" });

    const tampered = await restore(await tamperedArchive(archive, name));
    expect(await taskDone(tampered.json.task_id as string)).toMatchObject({
      state: "failed",
      backup_name: name,
      error: expect.stringContaining("does not match its manifest"),
    });

    // Nothing changed, and the uploads are gone once their tasks end.
    expect(await portalState()).toEqual(changed);
  }, 90_000);

  it("restores exactly the backup's data, the audit chain verifying with the restore recorded after it", async () => {
    // Every page the gateway keeps is outdated by a restore (ADR 12): the rows changed with no write fence.
    const redis = createRedis(testServers().redisUrl, createLogger("backups-test", "ERROR"));
    const fences = writeFences(redis, PROJECT_WRITE_FENCES);
    const someProject = randomUUID();
    const versionBefore = await fences.current(someProject);
    const restored = await restore(archive);
    expect(restored.status).toBe(202);
    expect(restored.json.message).toEqual(expect.any(String));
    const task = await taskDone(restored.json.task_id as string);
    expect(task).toMatchObject({ kind: "restore", state: "succeeded", backup_name: name, error: null });
    expect(await fences.current(someProject)).not.toBe(versionBefore);
    await redis.quit();

    const after = await portalState();
    expect(after.projects).toEqual(before.projects);
    expect(after.findings).toEqual(before.findings);
    expect(after.files).toEqual(before.files);
    expect(before.files.length).toBeGreaterThan(0);
    // Newest first: the restore, then exactly the entries the backup held.
    expect(after.audit[0]).toMatchObject({ action: "backup.restored", target_id: name, seq: before.audit[0]!.seq + 1 });
    expect(after.audit[0]!.prev_hash).toBe(before.audit[0]!.hash);
    expect(after.audit.slice(1)).toEqual(before.audit);
    expect(after.audit.some((e) => e.action === "fixture.after")).toBe(false);
    expect(await adminFixtures.auditChain(admin.orm)).toEqual({ ok: true, count: before.audit.length + 1 });
    // The archived project is back, the one made since is gone.
    const names = (after.projects as { id: string; name: string }[]).map((p) => p.name).sort();
    expect(names).toEqual(["Alpha", "Bravo"]);
  }, 90_000);

  it("deletes a manual backup and refuses to delete an automatic one", async () => {
    const automatic = "auto-20260101T000000000Z";
    await mkdir(join(backupDir, automatic), { recursive: true });
    const manifest = JSON.parse(await readFile(join(backupDir, name, "manifest.json"), "utf8")) as Record<
      string,
      unknown
    >;
    await writeFile(join(backupDir, automatic, "manifest.json"), JSON.stringify({ ...manifest, name: automatic }));
    const list = await request("GET", "/v1/admin/backup", { bearer: token });
    expect((list.json.items as { name: string }[]).map((b) => b.name)).toEqual([name, automatic]);
    const refused = await request("DELETE", `/v1/admin/backup/${automatic}`, { bearer: token });
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe("backup_protected");
    expect((await request("DELETE", `/v1/admin/backup/${name}`, { bearer: token })).status).toBe(204);
    expect((await request("DELETE", `/v1/admin/backup/${name}`, { bearer: token })).status).toBe(404);
    expect((await request("GET", "/v1/admin/backup", { bearer: token })).json).toMatchObject({
      total: 1,
      items: [{ name: automatic, kind: "automatic" }],
    });
  }, 30_000);
});

async function teamOf(projectId: string): Promise<string> {
  return (await request("GET", `/v1/projects/${projectId}`, { bearer: token })).json.team_id as string;
}

/** The archive with one byte of its database dump changed, repacked: the manifest's checksum no longer matches. */
async function tamperedArchive(archive: Buffer, name: string): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), "sca-tamper-"));
  try {
    execFileSync("tar", ["-xzf", "-", "-C", dir], { input: archive });
    const dump = join(dir, name, "database.dump");
    const bytes = await readFile(dump);
    bytes[bytes.length - 10]! ^= 0xff;
    await writeFile(dump, bytes);
    return execFileSync("tar", ["-czf", "-", "-C", dir, name]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
