// The ScanService's reads and admin cancel against a started scan-orchestrator (real PostgreSQL and Kafka).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { fromBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { TOPICS } from "@sca/kafka";
import { fromConnectError } from "@sca/problem";
import { AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { ScanStateChangedSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { ScanService } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import { closeTogether, callAs, EventReader, startService, type TestService } from "@sca/testkit";
import { service } from "../src/service.ts";
import { makeScan, newId } from "./support/scan-fixtures.ts";

let so: TestService;
let scans: Client<typeof ScanService>;
let domain: EventReader;
let audit: EventReader;

const teamA = newId();
const teamB = newId();
const projectA1 = newId();
const projectA2 = newId();
const projectB = newId();
const memberA = (role: "viewer" | "developer" = "viewer") =>
  callAs.user(newId(), { memberships: [{ team_id: teamA, organization_id: null, role }] });
const admin = () => callAs.superAdmin(newId());

let projectsSvc: TestService;

beforeAll(async () => {
  // GetScan asks projects whether a caller who may not read a scan may see its project (403, else 404). These
  // scans' projects exist nowhere, so projects answers NotFound without asking identity (at a closed port here).
  projectsSvc = await startService("projects", { env: { IDENTITY_RPC_URL: "http://127.0.0.1:9" } });
  so = await startService(service, { env: { PROJECTS_RPC_URL: projectsSvc.url! } });
  scans = so.client(ScanService);
  domain = await EventReader.start(so.kafka!, TOPICS.domainEvents);
  audit = await EventReader.start(so.kafka!, TOPICS.auditEvents);
}, 60_000);

// Two services leave their consumer groups and drop their schemas and topics: more than the default 30 s under load.
afterAll(async () => {
  await domain?.stop();
  await audit?.stop();
  await closeTogether([so, projectsSvc]);
}, 60_000);

async function problem(call: Promise<unknown>) {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConnectError);
  return { code: (err as ConnectError).code, problem: fromConnectError(err as ConnectError).init };
}

describe("GetScan", () => {
  it("answers a member of the scan's team with the spec's fields", async () => {
    const row = await makeScan(so.orm, {
      teamId: teamA,
      projectId: projectA1,
      kind: "source",
      ref: "main",
      release: "2.4.0",
      metadata: { release: "2.4.0", pipeline: "ci-42" },
      requestedByUserId: newId(),
    });
    const { scan } = await scans.getScan({ scanId: row.id }, await memberA());
    expect(scan).toMatchObject({
      id: row.id,
      projectId: projectA1,
      projectName: "Payments API",
      projectSlug: "payments-api",
      kind: "source",
      status: "queued",
      currentStep: "",
      progressPercent: 0,
      ref: "main",
      normalizedRef: "refs/heads/main",
      release: "2.4.0",
      metadata: { release: "2.4.0", pipeline: "ci-42" },
      queueTaskId: `${row.id}/1`,
      requestedByUserId: row.requestedByUserId!,
      teamId: teamA,
      trigger: "manual",
      attempt: 1,
    });
    expect(scan!.createdAt).toBeDefined();
    expect(scan!.startedAt).toBeUndefined();
    expect(scan!.errorMessage).toBeUndefined();
  });

  it("hides scans of other teams, unknown ids and ids that are not UUIDs alike", async () => {
    const other = await makeScan(so.orm, { teamId: teamB, projectId: projectB });
    for (const scanId of [other.id, newId(), "not-a-uuid"]) {
      expect(await problem(scans.getScan({ scanId }, await memberA()))).toMatchObject({
        code: Code.NotFound,
        problem: { status: 404 },
      });
    }
    await expect(scans.getScan({ scanId: other.id }, await admin())).resolves.toMatchObject({ scan: { id: other.id } });
  });

  it("lets a project-scoped API key read its project's scans and no other of the team", async () => {
    const mine = await makeScan(so.orm, { teamId: teamA, projectId: projectA1 });
    const sibling = await makeScan(so.orm, { teamId: teamA, projectId: projectA2 });
    const key = await callAs.apiKey(
      newId(),
      {
        scope: "project",
        organization_id: null,
        team_id: teamA,
        project_id: projectA1,
        permission_breadth: "read_only",
      },
      { memberships: [{ team_id: teamA, organization_id: null, role: "developer" }] },
    );
    await expect(scans.getScan({ scanId: mine.id }, key)).resolves.toMatchObject({ scan: { id: mine.id } });
    expect(await problem(scans.getScan({ scanId: sibling.id }, key))).toMatchObject({ code: Code.NotFound });
  });

  it("refuses a call without a caller", async () => {
    expect(await problem(scans.getScan({ scanId: newId() }))).toMatchObject({ code: Code.Unauthenticated });
  });
});

describe("ListScans and AdminListScans", () => {
  const teamC = newId();
  const projectC1 = newId();
  const projectC2 = newId();
  const memberC = () =>
    callAs.user(newId(), { memberships: [{ team_id: teamC, organization_id: null, role: "developer" }] });
  let made: string[] = [];

  beforeAll(async () => {
    made = [];
    made.push(
      (
        await makeScan(so.orm, {
          teamId: teamC,
          projectId: projectC1,
          status: "succeeded",
          kind: "sbom",
          projectName: "Ledger 100%",
          projectSlug: "ledger",
        })
      ).id,
    );
    made.push(
      (
        await makeScan(so.orm, {
          teamId: teamC,
          projectId: projectC1,
          status: "failed",
          kind: "source",
          ref: "main",
          projectName: "Ledger 100%",
          projectSlug: "ledger",
        })
      ).id,
    );
    made.push(
      (
        await makeScan(so.orm, {
          teamId: teamC,
          projectId: projectC2,
          status: "running",
          kind: "container",
          ref: "nginx",
          projectName: "Edge Proxy",
          projectSlug: "edge-proxy",
        })
      ).id,
    );
    made.push(
      (
        await makeScan(so.orm, {
          teamId: teamC,
          projectId: projectC2,
          status: "queued",
          kind: "source",
          projectName: "Edge Proxy",
          projectSlug: "edge-proxy",
        })
      ).id,
    );
  });

  it("lists the caller's teams' scans, newest first, with the total", async () => {
    const res = await scans.listScans({}, await memberC());
    expect(res.items.map((s) => s.id)).toEqual([...made].reverse());
    expect(res.page).toMatchObject({ total: 4, page: 1, pageSize: 50 });
    const outsider = await scans.listScans({}, await callAs.user(newId()));
    expect(outsider.items).toEqual([]);
    expect(outsider.page).toMatchObject({ total: 0 });
  });

  it("filters by status, kind and project, and pages", async () => {
    const as = await memberC();
    expect((await scans.listScans({ status: "failed" }, as)).items.map((s) => s.id)).toEqual([made[1]]);
    expect((await scans.listScans({ kind: "container" }, as)).items.map((s) => s.id)).toEqual([made[2]]);
    expect((await scans.listScans({ projectId: projectC1 }, as)).items.map((s) => s.id)).toEqual([made[1], made[0]]);
    const page2 = await scans.listScans({ page: { page: 2, pageSize: 3 } }, as);
    expect(page2.items.map((s) => s.id)).toEqual([made[0]]);
    expect(page2.page).toMatchObject({ total: 4, page: 2, pageSize: 3 });
  });

  it("refuses unknown filter values and pages past their bounds", async () => {
    const as = await memberC();
    expect(await problem(scans.listScans({ status: "done" }, as))).toMatchObject({
      code: Code.InvalidArgument,
      problem: { violations: [{ path: "query.status" }] },
    });
    expect(await problem(scans.listScans({ kind: "binary" }, as))).toMatchObject({
      problem: { violations: [{ path: "query.kind" }] },
    });
    expect(await problem(scans.listScans({ projectId: "x" }, as))).toMatchObject({
      problem: { violations: [{ path: "query.project_id" }] },
    });
    expect(await problem(scans.listScans({ page: { pageSize: 201 } }, as))).toMatchObject({
      problem: { violations: [{ path: "query.page_size" }] },
    });
  });

  it("shows a project-scoped key only its project, whatever project it asks for", async () => {
    const key = await callAs.apiKey(
      newId(),
      {
        scope: "project",
        organization_id: null,
        team_id: teamC,
        project_id: projectC2,
        permission_breadth: "read_only",
      },
      { memberships: [{ team_id: teamC, organization_id: null, role: "developer" }] },
    );
    expect((await scans.listScans({}, key)).items.map((s) => s.id)).toEqual([made[3], made[2]]);
    expect((await scans.listScans({ projectId: projectC1 }, key)).items).toEqual([]);
  });

  it("keeps the admin queue to super_admins (others NotFound)", async () => {
    expect(await problem(scans.adminListScans({}, await memberC()))).toMatchObject({ code: Code.NotFound });
  });

  it("filters the admin queue by status, kind and project id or name text", async () => {
    const as = await admin();
    const ids = async (req: { status?: string; kind?: string; project?: string }) =>
      (await scans.adminListScans({ ...req, page: { pageSize: 200 } }, as)).items.map((s) => s.id);
    expect(await ids({ project: projectC2 })).toEqual([made[3], made[2]]);
    expect(await ids({ project: "EDGE-pro" })).toEqual([made[3], made[2]]);
    expect(await ids({ project: "ledger", status: "succeeded" })).toEqual([made[0]]);
    expect(await ids({ project: "100%" })).toEqual([made[1], made[0]]);
    // % is matched literally, never as a wildcard
    expect(await ids({ project: "r 1%0" })).toEqual([]);
    expect(await ids({ project: projectC1, kind: "source" })).toEqual([made[1]]);
  });
});

describe("AdminCancelScan", () => {
  it("cancels a queued scan, publishes the change and audits it", async () => {
    const row = await makeScan(so.orm, { teamId: teamA, projectId: projectA1 });
    const adminUser = newId();
    const { scan } = await scans.adminCancelScan({ scanId: row.id }, await callAs.superAdmin(adminUser));
    expect(scan).toMatchObject({ id: row.id, status: "cancelled" });
    expect(scan!.completedAt).toBeDefined();
    const [changed] = await domain.waitFor(ScanStateChangedSchema, (e) => e.scanId === row.id);
    expect(changed).toMatchObject({
      scanId: row.id,
      projectId: projectA1,
      teamId: teamA,
      status: "cancelled",
      previousStatus: "queued",
      attempt: 1,
    });
    const [event] = await audit.waitFor(AuditEventSchema, (e) => e.targetId === row.id);
    expect(event).toMatchObject({
      source: "scan-orchestrator",
      action: "scan.cancelled",
      targetTable: "scans",
      teamId: teamA,
      outcome: "success",
      actor: { userId: adminUser },
    });
  });

  it("cancels a running scan and drops its lease", async () => {
    const row = await makeScan(so.orm, { teamId: teamA, projectId: projectA1, status: "running" });
    const { scan } = await scans.adminCancelScan({ scanId: row.id }, await admin());
    expect(scan).toMatchObject({ status: "cancelled" });
    const [changed] = await domain.waitFor(ScanStateChangedSchema, (e) => e.scanId === row.id);
    expect(changed).toMatchObject({ previousStatus: "running", status: "cancelled" });
  });

  it("answers a cancelled scan unchanged, without a second event", async () => {
    const row = await makeScan(so.orm, { teamId: teamA, projectId: projectA1 });
    const first = await scans.adminCancelScan({ scanId: row.id }, await admin());
    const again = await scans.adminCancelScan({ scanId: row.id }, await admin());
    expect(again.scan).toEqual(first.scan);
    await domain.waitFor(ScanStateChangedSchema, (e) => e.scanId === row.id);
    // the relay publishes within a poll; a second event would be there by now
    await new Promise((r) => setTimeout(r, 500));
    const events = domain.seen
      .filter((r) => r.type === ScanStateChangedSchema.typeName)
      .map((r) => fromBinary(ScanStateChangedSchema, r.value))
      .filter((e) => e.scanId === row.id);
    expect(events).toHaveLength(1);
  });

  it("refuses finished scans with 409 scan_finished", async () => {
    for (const status of ["succeeded", "failed"] as const) {
      const row = await makeScan(so.orm, { teamId: teamA, projectId: projectA1, status, completedAt: new Date() });
      expect(await problem(scans.adminCancelScan({ scanId: row.id }, await admin()))).toMatchObject({
        problem: { status: 409, code: "scan_finished" },
      });
    }
  });

  it("is NotFound for anyone but a super_admin, and for unknown scans", async () => {
    const row = await makeScan(so.orm, { teamId: teamA, projectId: projectA1 });
    expect(await problem(scans.adminCancelScan({ scanId: row.id }, await memberA("developer")))).toMatchObject({
      code: Code.NotFound,
    });
    expect(await problem(scans.adminCancelScan({ scanId: newId() }, await admin()))).toMatchObject({
      code: Code.NotFound,
    });
    expect((await scans.getScan({ scanId: row.id }, await admin())).scan).toMatchObject({ status: "queued" });
  });
});
