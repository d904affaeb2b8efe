// SLA-breach alerts end to end through the real servers: projects (its SLA sweep every 300 ms), identity (the
// team and its people) and the notifier share one topic prefix, so the VulnerabilitySlaBreached the sweep writes to
// projects' outbox is the event the notifier turns into vulnerability.sla_breached: once per breach, to the team's
// developers and admins, not its viewers.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { bytesSource, DirectoryArtefactStore } from "@sca/artefacts";
import { ScanArtefactSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { NotificationService } from "@sca/proto/sca/notifier/v1/notifier_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { VulnerabilityMatchService } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import { callAs, eventually, fixturesOf, type TestService } from "@sca/testkit";
import { startProjectsAndNotifier, type ProjectsAndNotifier } from "./support/projects-and-notifier.ts";
import { teamWithProject } from "./support/team-project.ts";

let stack: ProjectsAndNotifier;
let identity: TestService;
let projects: TestService;
let notifier: TestService;
let dir: string;

beforeAll(async () => {
  stack = await startProjectsAndNotifier("sla", { slaSweepEveryMs: 300 });
  ({ identity, projects, notifier, dir } = stack);
}, 90_000);

afterAll(async () => {
  await stack?.close();
}, 120_000);

describe("vulnerability.sla_breached", () => {
  it("reaches the team's developers once per breach, with the most severe finding's severity", async () => {
    const findingFixtures = await fixturesOf("projects");
    const { dev, viewer, projectId } = await teamWithProject(identity, projects, "SLA");
    // A project with the fixture's findings, recorded as the scanner-runner records them.
    const stored = await new DirectoryArtefactStore(dir).put(
      `inventory/${randomUUID()}.pb`,
      bytesSource(findingFixtures.findingsArtefact()),
      { maxBytes: 1024 ** 2 },
    );
    const scanId = randomUUID();
    const runner = await callAs.service("scanner-runner");
    const inventory = create(ScanArtefactSchema, {
      key: stored.key,
      sizeBytes: BigInt(stored.sizeBytes),
      sha256: stored.sha256,
    });
    await projects
      .client(InventoryService)
      .ingestInventory({ scanId, projectId, attempt: 1, ref: "", inventory }, runner);
    await projects
      .client(VulnerabilityMatchService)
      .recordScanMatches(findingFixtures.scanMatches(projectId, scanId), runner);

    // Log4Shell (critical, 7 days) and the lodash high (30 days) first detected 31 days ago.
    await projects.orm.em.getConnection().execute(
      `update finding_triage set first_detected_at = now() - interval '31 days'
         where project_id = ? and vulnerability_id in ('CVE-2021-44228', 'CVE-2021-23337')`,
      [projectId],
    );

    const notifications = notifier.client(NotificationService);
    const listOf = async (userId: string) =>
      (await notifications.listNotifications({ page: { page: 1, pageSize: 50 } }, await callAs.user(userId))).items;
    const mine = await eventually(
      () => listOf(dev),
      (items) => items.length > 0,
      30_000,
    );
    expect(mine.map((n) => [n.kind, n.severity, n.projectId])).toEqual([
      ["vulnerability.sla_breached", "critical", projectId],
    ]);
    expect(mine[0]!.title).toBe("2 vulnerability findings are past the remediation window");
    expect(mine[0]!.body).toContain("CVE-2021-44228 (critical) in log4j-core 2.14.1");
    // Many sweeps later: still one alert, and none for the viewer.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await listOf(dev)).toHaveLength(1);
    expect(await listOf(viewer)).toHaveLength(0);
  });
});
