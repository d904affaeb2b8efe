// Creating scans through the real servers: identity (teams), projects (the owner of projects, asked as the caller)
// and the scan-orchestrator, with real PostgreSQL and Kafka. The team cap is 2 here so the 429 and rate_limited
// rows are reachable.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { TOPICS } from "@sca/kafka";
import { fromConnectError } from "@sca/problem";
import { ScanJobSchema, ScanStateChangedSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { ScanService } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import type { Role } from "@sca/rpc";
import { closeTogether, callAs, EventReader, startService, type CallOptions, type TestService } from "@sca/testkit";
import { NO_SBOM_MESSAGE } from "../src/rpc/scan-create.ts";
import { service } from "../src/service.ts";
import { makeScan } from "./support/scan-fixtures.ts";

let identity: TestService;
let projectsSvc: TestService;
let so: TestService;
let scans: Client<typeof ScanService>;
let projects: Client<typeof ProjectService>;
let manualLane: EventReader;
let domain: EventReader;

interface Team {
  id: string;
  organizationId: string;
}
let team: Team;
let other: Team;

const as = (roles: [Team, Role][], userId = randomUUID()) =>
  callAs.user(userId, {
    memberships: roles.map(([t, role]) => ({ team_id: t.id, organization_id: t.organizationId, role })),
  });

async function newTeam(admin: CallOptions): Promise<Team> {
  const slug = `team-${randomUUID().slice(0, 8)}`;
  const { team: t } = await identity.client(DirectoryService).createTeam({ name: `Team ${slug}`, slug }, admin);
  return { id: t!.id, organizationId: t!.organizationId! };
}

async function newProject(t: Team): Promise<string> {
  const slug = `p-${randomUUID().slice(0, 8)}`;
  const { project } = await projects.createProject(
    { project: { name: `Project ${slug}`, slug, teamId: t.id } },
    await as([[t, "developer"]]),
  );
  return project!.id;
}

async function problem(call: Promise<unknown>) {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConnectError);
  return { code: (err as ConnectError).code, problem: fromConnectError(err as ConnectError).init };
}

beforeAll(async () => {
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
  });
  projectsSvc = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url! } });
  so = await startService(service, {
    env: { PROJECTS_RPC_URL: projectsSvc.url!, SCAN_MAX_CONCURRENT_PER_TEAM: "2", DISK_PRESSURE_MIN_FREE_BYTES: "0" },
  });
  scans = so.client(ScanService);
  projects = projectsSvc.client(ProjectService);
  const admin = await callAs.superAdmin(randomUUID());
  team = await newTeam(admin);
  other = await newTeam(admin);
  manualLane = await EventReader.start(so.kafka!, TOPICS.scanJobsManual);
  domain = await EventReader.start(so.kafka!, TOPICS.domainEvents);
}, 90_000);

afterAll(async () => {
  await manualLane?.stop();
  await domain?.stop();
  await closeTogether([so, projectsSvc, identity]);
  // Three services and two readers leave their consumer groups one after another: slow on a loaded machine.
}, 90_000);

describe("CreateScan", () => {
  it("queues a scan for a developer and publishes its job on the manual lane", async () => {
    const projectId = await newProject(team);
    const userId = randomUUID();
    const { scan } = await scans.createScan(
      { projectId, kind: "source", ref: "main", metadata: { release: " 2.4.0 ", pipeline: "ci" } },
      await as([[team, "developer"]], userId),
    );
    expect(scan).toMatchObject({
      projectId,
      teamId: team.id,
      kind: "source",
      status: "queued",
      ref: "main",
      normalizedRef: "refs/heads/main",
      release: "2.4.0",
      trigger: "manual",
      attempt: 1,
      requestedByUserId: userId,
    });
    const [job] = await manualLane.waitFor(ScanJobSchema, (j) => j.scanId === scan!.id);
    expect(job).toMatchObject({ projectId, teamId: team.id, kind: "source", lane: "manual", attempt: 1 });
    expect(job!.ref).toBe("refs/heads/main");
    const [changed] = await domain.waitFor(ScanStateChangedSchema, (e) => e.scanId === scan!.id);
    expect(changed).toMatchObject({ status: "queued", previousStatus: "" });
  });

  it("creates a sbom scan without an upload as failed at once, with no job", async () => {
    const projectId = await newProject(team);
    const { scan } = await scans.createScan({ projectId, kind: "sbom" }, await as([[team, "developer"]]));
    expect(scan).toMatchObject({ status: "failed", errorMessage: NO_SBOM_MESSAGE });
    expect(scan!.completedAt).toBeDefined();
  });

  it("takes a registered SBOM upload into the job", async () => {
    const projectId = await newProject(team);
    const dev = await as([[team, "developer"]]);
    const sha256 = "a".repeat(64);
    const key = `uploads/${projectId}/${randomUUID()}`;
    const { uploadId, expiresAt } = await scans.registerSbomUpload(
      { projectId, artefact: { key, sizeBytes: 123n, sha256 }, mediaType: "application/json", fileName: "bom.json" },
      dev,
    );
    expect(expiresAt).toBeDefined();
    const { scan } = await scans.createScan({ projectId, kind: "sbom", sbomUploadId: uploadId }, dev);
    expect(scan!.status).toBe("queued");
    const [job] = await manualLane.waitFor(ScanJobSchema, (j) => j.scanId === scan!.id);
    expect(job!.sbom).toMatchObject({ key, sizeBytes: 123n, sha256 });
    // Another project's upload is not this project's.
    const elsewhere = await newProject(team);
    expect(
      await problem(scans.createScan({ projectId: elsewhere, kind: "sbom", sbomUploadId: uploadId }, dev)),
    ).toMatchObject({ code: Code.InvalidArgument, problem: { violations: [{ path: "body.sbom_upload_id" }] } });
  });

  it("refuses a viewer (403), leaves existence to projects, and refuses bad input", async () => {
    const projectId = await newProject(team);
    expect(await problem(scans.createScan({ projectId }, await as([[team, "viewer"]])))).toMatchObject({
      code: Code.PermissionDenied,
    });
    // Projects answers what an outsider learns; an unknown project is 404 alike for everyone.
    const outsider = await as([[other, "team_admin"]]);
    const hidden = await problem(scans.createScan({ projectId }, outsider));
    const unknown = await problem(scans.createScan({ projectId: randomUUID() }, outsider));
    expect(unknown.code).toBe(Code.NotFound);
    expect([Code.NotFound, Code.PermissionDenied]).toContain(hidden.code);
    const dev = await as([[team, "developer"]]);
    expect(await problem(scans.createScan({ projectId, ref: "bad ref" }, dev))).toMatchObject({
      problem: { status: 422, violations: [{ path: "body.ref" }] },
    });
    expect(await problem(scans.createScan({ projectId, metadata: { release: 42 } }, dev))).toMatchObject({
      problem: { status: 422, violations: [{ path: "body.metadata.release" }] },
    });
    expect(await problem(scans.createScan({ projectId, kind: "container" }, dev))).toMatchObject({
      problem: { status: 422, violations: [{ path: "body.ref" }] },
    });
  });

  it("refuses past the team's cap with 429 and Retry-After", async () => {
    const capped = await newTeam(await callAs.superAdmin(randomUUID()));
    const projectId = await newProject(capped);
    const dev = await as([[capped, "developer"]]);
    await scans.createScan({ projectId, ref: "a" }, dev);
    await scans.createScan({ projectId, ref: "b" }, dev);
    const refused = await problem(scans.createScan({ projectId, ref: "c" }, dev));
    expect(refused).toMatchObject({
      code: Code.ResourceExhausted,
      problem: { status: 429, code: "rate_limited", extensions: { concurrent_scan_limit: 2 } },
    });
    expect(Number(refused.problem.headers?.["Retry-After"])).toBeGreaterThanOrEqual(1);
  });
});

describe("ListProjectScans", () => {
  it("lists the project's scans, newest first, for its team", async () => {
    const listTeam = await newTeam(await callAs.superAdmin(randomUUID()));
    const projectId = await newProject(listTeam);
    const dev = await as([[listTeam, "developer"]]);
    const first = (await scans.createScan({ projectId, ref: "x" }, dev)).scan!;
    const second = (await scans.createScan({ projectId, kind: "sbom" }, dev)).scan!;
    const { items, page } = await scans.listProjectScans({ projectId }, await as([[listTeam, "viewer"]]));
    expect(items.map((s) => s.id)).toEqual([second.id, first.id]);
    expect(page!.total).toBe(2);
    const failed = await scans.listProjectScans({ projectId, status: "failed" }, dev);
    expect(failed.items.map((s) => s.id)).toEqual([second.id]);
    expect((await problem(scans.listProjectScans({ projectId: randomUUID() }, dev))).code).toBe(Code.NotFound);
  });
});

describe("BatchCreateScans", () => {
  it("answers each row: created, already_exists, forbidden, invalid, rate_limited", async () => {
    const batchTeam = await newTeam(await callAs.superAdmin(randomUUID()));
    const [p1, p2, p3] = [await newProject(batchTeam), await newProject(batchTeam), await newProject(batchTeam)];
    const hidden = await newProject(other);
    const dev = await as([[batchTeam, "developer"]]);
    const answer = await scans.batchCreateScans(
      { projectIds: [p1, p1, "nope", hidden, p2, p3], ref: "refs/heads/main" },
      dev,
    );
    expect(answer.rows.map((r) => r.status)).toEqual([
      "created",
      "already_exists",
      "invalid",
      "forbidden",
      "created",
      "rate_limited",
    ]);
    expect(answer.rows[1]!.scanId).toBe(answer.rows[0]!.scanId);
    expect(answer.rows[5]!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(answer).toMatchObject({
      allSucceeded: false,
      total: 6,
      created: 2,
      alreadyExisted: 1,
      failed: 3,
      failedByStatus: { invalid: 1, forbidden: 1, rate_limited: 1 },
    });
    await manualLane.waitFor(ScanJobSchema, (j) => j.scanId === answer.rows[4]!.scanId);
    expect(await problem(scans.batchCreateScans({ projectIds: [], ref: "" }, dev))).toMatchObject({
      problem: { status: 422 },
    });
  });
});

describe("ListProjectReleases", () => {
  it("lists succeeded labelled scans, superseded ones included, newest first, filtered by label and ref", async () => {
    const relTeam = await newTeam(await callAs.superAdmin(randomUUID()));
    const projectId = await newProject(relTeam);
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
    const scan = (minute: number, fields: Partial<Parameters<typeof makeScan>[1]>) =>
      makeScan(so.orm, { teamId: relTeam.id, projectId, createdAt: at(minute), ...fields });
    const v1 = await scan(1, { status: "succeeded", release: "1.0", ref: "main", supersededAt: at(3) });
    const unlabelled = await scan(2, { status: "succeeded", ref: "main" });
    const v2 = await scan(3, { status: "succeeded", release: "2.0", ref: "refs/heads/main" });
    const tag = await scan(4, { status: "succeeded", release: "2.0", ref: "refs/tags/v2.0" });
    await scan(5, { status: "failed", release: "3.0", ref: "main" });
    await scan(6, { status: "running", release: "3.0", ref: "main" });
    await scan(7, { status: "cancelled", release: "3.0" });
    await makeScan(so.orm, { teamId: relTeam.id, projectId: randomUUID(), status: "succeeded", release: "2.0" });
    const viewer = await as([[relTeam, "viewer"]]);
    const ids = async (req: { release?: string; ref?: string; page?: { page: number; pageSize: number } }) => {
      const answer = await scans.listProjectReleases({ projectId, ...req }, viewer);
      return { ids: answer.items.map((s) => s.id), page: answer.page };
    };

    const all = await ids({});
    expect(all.ids).toEqual([tag.id, v2.id, v1.id]);
    expect(all.page).toMatchObject({ total: 3, page: 1, pageSize: 20 });
    expect(all.ids).not.toContain(unlabelled.id);
    const first = await scans.listProjectReleases({ projectId }, viewer);
    expect(first.items[2]).toMatchObject({ id: v1.id, status: "succeeded", release: "1.0", projectId });
    expect(first.items[2]!.supersededAt).toBeDefined();

    expect((await ids({ release: " 2.0 " })).ids).toEqual([tag.id, v2.id]);
    expect(await ids({ release: "2" })).toMatchObject({ ids: [], page: { total: 0 } });
    expect(await ids({ release: "3.0" })).toMatchObject({ ids: [], page: { total: 0 } });
    // A bare name is a branch: main and refs/heads/main are one ref; a tag is named fully.
    expect((await ids({ ref: "main" })).ids).toEqual([v2.id, v1.id]);
    expect((await ids({ ref: "refs/heads/main" })).ids).toEqual([v2.id, v1.id]);
    expect((await ids({ ref: "v2.0" })).ids).toEqual([]);
    expect((await ids({ ref: "refs/tags/v2.0", release: "2.0" })).ids).toEqual([tag.id]);
    expect(await ids({ page: { page: 2, pageSize: 2 } })).toMatchObject({
      ids: [v1.id],
      page: { total: 3, page: 2, pageSize: 2 },
    });
  });

  it("rejects bounds and bad refs, and reads access exactly as ListProjectScans does", async () => {
    const admin = await callAs.superAdmin(randomUUID());
    const relTeam = await newTeam(admin);
    const neighbours = await newTeam(admin);
    const slug = `p-${randomUUID().slice(0, 8)}`;
    const { project } = await projects.createProject(
      { project: { name: `Project ${slug}`, slug, teamId: relTeam.id, visibility: "organization" } },
      await as([[relTeam, "developer"]]),
    );
    const projectId = project!.id;
    expect(relTeam.organizationId).toBe(neighbours.organizationId);
    const viewer = await as([[relTeam, "viewer"]]);
    for (const [req, path] of [
      [{ page: { page: 1, pageSize: 101 } }, "query.size"],
      [{ page: { page: 0, pageSize: -1 } }, "query.size"],
      [{ ref: "a..b" }, "query.ref"],
      [{ release: "x".repeat(256) }, "query.release"],
    ] as const) {
      const refused = await problem(scans.listProjectReleases({ projectId, ...req }, viewer));
      expect(refused).toMatchObject({ code: Code.InvalidArgument, problem: { status: 422 } });
      expect(JSON.stringify(refused.problem)).toContain(path);
    }
    // The same answers as the project's scan list, caller by caller.
    const callers = [
      await as([[neighbours, "team_admin"]]), // reads the organization-visible project, not its scans: 403
      await as([[other, "viewer"]]),
      await callAs.user(randomUUID(), { memberships: [] }),
    ];
    for (const caller of callers) {
      const scansAnswer = await problem(scans.listProjectScans({ projectId }, caller));
      const releasesAnswer = await problem(scans.listProjectReleases({ projectId }, caller));
      expect(releasesAnswer.code).toBe(scansAnswer.code);
      expect(releasesAnswer.problem.status).toBe(scansAnswer.problem.status);
    }
    expect((await problem(scans.listProjectReleases({ projectId }, callers[0]))).code).toBe(Code.PermissionDenied);
    for (const missing of [randomUUID(), "not-a-uuid"])
      expect((await problem(scans.listProjectReleases({ projectId: missing }, viewer))).code).toBe(Code.NotFound);
    expect((await problem(scans.listProjectReleases({ projectId }))).code).toBe(Code.Unauthenticated);
    await expect(scans.listProjectReleases({ projectId }, admin)).resolves.toMatchObject({ items: [] });
  });
});

describe("CreateWebhookScan", () => {
  const webhook = (t: Team, projectId: string, deliveryId: string) => ({
    projectId,
    teamId: t.id,
    projectName: "Hooked",
    projectSlug: "hooked",
    ref: "refs/heads/main",
    provider: "scm_a",
    deliveryId,
    event: "push",
    repository: "acme/hooked",
  });

  it("is for the gateway's service caller only", async () => {
    const t = await newTeam(await callAs.superAdmin(randomUUID()));
    const projectId = await newProject(t);
    for (const caller of [await as([[t, "team_admin"]]), await callAs.service("scanner-runner")])
      expect((await problem(scans.createWebhookScan(webhook(t, projectId, randomUUID()), caller))).code).toBe(
        Code.PermissionDenied,
      );
  });

  it("queues one scan per delivery, also for two copies at once, under the team's cap", async () => {
    const t = await newTeam(await callAs.superAdmin(randomUUID()));
    const projectId = await newProject(t);
    const gateway = await callAs.service("gateway");
    const delivery = randomUUID();
    const [a, b] = await Promise.all([
      scans.createWebhookScan(webhook(t, projectId, delivery), gateway),
      scans.createWebhookScan(webhook(t, projectId, delivery), gateway),
    ]);
    expect(a.scan!.id).toBe(b.scan!.id);
    expect([a.duplicate, b.duplicate].sort()).toEqual([false, true]);
    expect(a.scan).toMatchObject({ trigger: "webhook", status: "queued", ref: "refs/heads/main" });
    expect(a.scan!.requestedByUserId).toBeUndefined();
    // The cap is 2: a second delivery queues, a third is refused and not recorded, so its redelivery may queue later.
    await scans.createWebhookScan(webhook(t, projectId, randomUUID()), gateway);
    const third = randomUUID();
    const refused = await problem(scans.createWebhookScan(webhook(t, projectId, third), gateway));
    expect(refused.code).toBe(Code.ResourceExhausted);
    const again = await problem(scans.createWebhookScan(webhook(t, projectId, third), gateway));
    expect(again.code).toBe(Code.ResourceExhausted);
    const { items } = await scans.listProjectScans({ projectId }, await as([[t, "developer"]]));
    expect(items).toHaveLength(2);
  });
});
