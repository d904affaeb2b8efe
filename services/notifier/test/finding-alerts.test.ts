// findings.new, vulnerability.kev_listed and gate.failed end to end through the real servers: identity (the team
// and its people), projects (the findings, recorded as the scanner-runner records them), policy (the gate) and the
// notifier share one topic prefix, so the FindingsChanged a re-match writes to projects' outbox, the
// VulnerabilitiesKevListed an enrichment update writes and the GateFailed policy writes after a scan succeeded (the
// ScanStateChanged published as the scan-orchestrator publishes it), after a re-match added findings or after
// licenses from the package registries (recorded as the scanner-runner records them) made a component forbidden are the events the notifier turns into
// notifications: to the team by role, once per (event, person), nothing more when Kafka delivers an event again.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import { bytesSource, DirectoryArtefactStore } from "@sca/artefacts";
import { EVENT_ID, EVENT_TYPE, TOPICS, uuidv7 } from "@sca/kafka";
import { VulnerabilitiesKevListedSchema } from "@sca/proto/sca/events/v1/kev_listings_pb.ts";
import { FindingsChangedSchema, InventoryLicensesCategorisedSchema } from "@sca/proto/sca/events/v1/projects_pb.ts";
import { GateFailedSchema, GatePassedSchema } from "@sca/proto/sca/events/v1/gate_pb.ts";
import { ScanArtefactSchema, ScanStateChangedSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { NotificationService } from "@sca/proto/sca/notifier/v1/notifier_pb.ts";
import { LicensePolicyService } from "@sca/proto/sca/policy/v1/license_policies_pb.ts";
import { ComponentStateService } from "@sca/proto/sca/projects/v1/component_states_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { VulnerabilityFindingService } from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import { VulnerabilityMatchService } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import {
  closeTogether,
  callAs,
  EventReader,
  fixturesOf,
  freePort,
  startService,
  uniqueName,
  type CallOptions,
  type TestService,
  eventually,
} from "@sca/testkit";
import { service } from "../src/service.ts";

let identity: TestService;
let projects: TestService;
let notifier: TestService;
let policy: TestService;
let events: EventReader;
let dir: string;
let runner: CallOptions;
let producer: ReturnType<NonNullable<TestService["kafka"]>["producer"]>;

beforeAll(async () => {
  const KAFKA_TOPIC_PREFIX = `${uniqueName("notifier_findings")}.`;
  dir = await mkdtemp(join(tmpdir(), "sca-finding-alerts-"));
  identity = await startService("identity", { env: { KAFKA_TOPIC_PREFIX } });
  // Each asks the other: projects categorises licenses through policy, policy reads the gate's facts from projects.
  // Policy listens on a port chosen before projects starts (projects' consumer retries until it answers).
  const policyPort = await freePort();
  projects = await startService("projects", {
    env: {
      IDENTITY_RPC_URL: identity.url!,
      POLICY_RPC_URL: `http://127.0.0.1:${policyPort}`,
      KAFKA_TOPIC_PREFIX,
      ARTEFACT_DIR: dir,
    },
  });
  policy = await startService("policy", {
    env: {
      IDENTITY_RPC_URL: identity.url!,
      PROJECTS_RPC_URL: projects.url!,
      KAFKA_TOPIC_PREFIX,
      RPC_PORT: String(policyPort),
    },
  });
  notifier = await startService(service, { env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX } });
  events = await EventReader.start(projects.kafka!, TOPICS.domainEvents);
  producer = notifier.kafka!.producer();
  await producer.connect();
  runner = await callAs.service("scanner-runner");
}, 90_000);

afterAll(async () => {
  await producer?.disconnect();
  await events?.stop();
  await closeTogether([notifier, policy, projects, identity]);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 120_000);

const listOf = async (userId: string) =>
  (
    await notifier
      .client(NotificationService)
      .listNotifications({ page: { page: 1, pageSize: 50 } }, await callAs.user(userId))
  ).items;

/** Kafka delivering a record again: the same bytes and headers (event id) as projects' relay sent them. */
async function redeliver(typeName: string, key: string) {
  const seen = events.seen.filter((r) => r.type === typeName && r.key === key);
  expect(seen.length).toBeGreaterThan(0);
  await producer.send({
    topic: notifier.kafka!.topicName(TOPICS.domainEvents),
    acks: -1,
    messages: seen.map((r) => ({
      key: r.key,
      value: r.value,
      headers: { [EVENT_TYPE]: r.type, [EVENT_ID]: r.eventId },
    })),
  });
}

/** A team with a developer, a team_admin and a viewer; a project of it with the fixture's findings. */
async function scannedProject() {
  const admin = await callAs.superAdmin(randomUUID());
  const directory = identity.client(DirectoryService);
  const people = await fixturesOf("identity");
  const fixtures = await fixturesOf("projects");
  const { team } = await directory.createTeam({ name: "Alerts", slug: `al-${randomUUID().slice(0, 8)}` }, admin);
  const member = async (role: string) => {
    const id = await people.user(identity.orm, {});
    await directory.addTeamMember({ teamId: team!.id, userId: id, role }, admin);
    return id;
  };
  const dev = await member("developer");
  const lead = await member("team_admin");
  const viewer = await member("viewer");
  const outsider = await people.user(identity.orm, {});
  const slug = `p-${randomUUID().slice(0, 8)}`;
  const { project } = await projects
    .client(ProjectService)
    .createProject({ project: { name: `Alerts ${slug}`, slug, teamId: team!.id } }, admin);
  const projectId = project!.id;
  const stored = await new DirectoryArtefactStore(dir).put(
    `inventory/${randomUUID()}.pb`,
    bytesSource(fixtures.findingsArtefact()),
    { maxBytes: 1024 ** 2 },
  );
  const scanId = randomUUID();
  const inventory = create(ScanArtefactSchema, {
    key: stored.key,
    sizeBytes: BigInt(stored.sizeBytes),
    sha256: stored.sha256,
  });
  await projects
    .client(InventoryService)
    .ingestInventory({ scanId, projectId, attempt: 1, ref: "", inventory }, runner);
  await projects.client(VulnerabilityMatchService).recordScanMatches(fixtures.scanMatches(projectId, scanId), runner);
  return { teamId: team!.id, organizationId: team!.organizationId!, projectId, scanId, dev, lead, viewer, outsider };
}

/** Vulnerabilities of this run only, reaching left-pad 1.3.0 through an advisory refresh (RecordRefreshMatches). */
async function refreshAddsTwo(listed: { knownExploited: true; kevDueDate: string } | object = {}) {
  const n = Math.floor(Math.random() * 90000) + 10000;
  const vulns = [
    { id: `CVE-2096-${n}`, severity: "critical", summary: "new, critical", ...listed },
    { id: `CVE-2095-${n}`, severity: "medium", summary: "new, medium" },
  ];
  await projects.client(VulnerabilityMatchService).recordRefreshMatches(
    {
      databaseVersion: `db-alerts-${n}`,
      vulnerabilities: vulns,
      verdicts: [
        {
          package: { ecosystem: "npm", name: "left-pad", version: "1.3.0" },
          vulnerabilities: vulns.map((v) => ({ vulnerabilityId: v.id, fixedVersions: [] })),
        },
      ],
    },
    runner,
  );
  return vulns;
}

describe("findings.new", () => {
  it("reaches the team's developers and admins once per re-match, not its viewers, not again on redelivery", async () => {
    const p = await scannedProject();
    // The scan's own first match raised nothing of this kind.
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await listOf(p.dev)).filter((n) => n.kind === "findings.new")).toHaveLength(0);

    const vulns = await refreshAddsTwo();
    const mine = await eventually(
      () => listOf(p.dev),
      (items) => items.some((n) => n.kind === "findings.new"),
      30_000,
    );
    const alert = mine.find((n) => n.kind === "findings.new")!;
    expect(alert.severity).toBeUndefined();
    expect(alert).toMatchObject({
      projectId: p.projectId,
      scanId: p.scanId,
      teamId: p.teamId,
      title: "2 new vulnerability findings after an advisory update",
      link: `/projects/${p.projectId}/vulnerabilities`,
    });
    expect(alert.body).toContain(`${vulns[0]!.id} (critical) in left-pad 1.3.0`);
    expect((await listOf(p.lead)).filter((n) => n.kind === "findings.new")).toHaveLength(1);
    expect(await listOf(p.viewer)).toHaveLength(0);
    expect(await listOf(p.outsider)).toHaveLength(0);

    await redeliver(FindingsChangedSchema.typeName, p.projectId);
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await listOf(p.dev)).filter((n) => n.kind === "findings.new")).toHaveLength(1);
  });
});

describe("vulnerability.kev_listed", () => {
  it("reaches the team once when a KEV listing touches open findings, critical, never for a repeat", async () => {
    const p = await scannedProject();
    const vulns = await refreshAddsTwo();
    const listing = vulns.map((v) => ({ ...v, knownExploited: true, kevDueDate: "2026-12-15" }));
    const matches = projects.client(VulnerabilityMatchService);
    await matches.recordVulnerabilityUpdates({ vulnerabilities: listing }, runner);
    const mine = await eventually(
      () => listOf(p.dev),
      (items) => items.some((n) => n.kind === "vulnerability.kev_listed"),
      30_000,
    );
    const alert = mine.find((n) => n.kind === "vulnerability.kev_listed")!;
    expect(alert).toMatchObject({
      severity: "critical",
      projectId: p.projectId,
      teamId: p.teamId,
      title: "2 open findings are now known to be exploited",
    });
    expect(alert.body).toContain(`${vulns[0]!.id} (critical) in left-pad 1.3.0`);
    expect(alert.body).toContain("2026-12-15");
    expect((await listOf(p.lead)).filter((n) => n.kind === "vulnerability.kev_listed")).toHaveLength(1);
    expect(await listOf(p.viewer)).toHaveLength(0);

    // The same refresh again (already listed), and Kafka delivering the event again: nothing more.
    await matches.recordVulnerabilityUpdates({ vulnerabilities: listing }, runner);
    await redeliver(VulnerabilitiesKevListedSchema.typeName, p.projectId);
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await listOf(p.dev)).filter((n) => n.kind === "vulnerability.kev_listed")).toHaveLength(1);
  });

  it("reaches the team when an advisory update finds a vulnerability that is listed already, once", async () => {
    const p = await scannedProject();
    const [listed, unlisted] = await refreshAddsTwo({ knownExploited: true, kevDueDate: "2027-01-05" });
    const mine = await eventually(
      () => listOf(p.dev),
      (items) => items.some((n) => n.kind === "vulnerability.kev_listed"),
    );
    const alert = mine.find((n) => n.kind === "vulnerability.kev_listed")!;
    expect(alert).toMatchObject({ severity: "critical", projectId: p.projectId, teamId: p.teamId });
    expect(alert.title).toBe("1 open finding is now known to be exploited");
    expect(alert.body).toContain(`${listed!.id} (critical) in left-pad 1.3.0`);
    expect(alert.body).not.toContain(unlisted!.id);
    expect(await listOf(p.viewer)).toHaveLength(0);
    await redeliver(VulnerabilitiesKevListedSchema.typeName, p.projectId);
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await listOf(p.dev)).filter((n) => n.kind === "vulnerability.kev_listed")).toHaveLength(1);
  });
});

/** The scan's move into succeeded, as the scan-orchestrator publishes it (event id given: a repeat is a redelivery). */
async function scanSucceeded(p: { scanId: string; projectId: string; teamId: string }, eventId = uuidv7()) {
  const message = create(ScanStateChangedSchema, {
    eventId,
    occurredAt: timestampNow(),
    scanId: p.scanId,
    projectId: p.projectId,
    teamId: p.teamId,
    kind: "sbom",
    status: "succeeded",
    previousStatus: "running",
    attempt: 1,
  });
  await producer.send({
    topic: notifier.kafka!.topicName(TOPICS.domainEvents),
    acks: -1,
    messages: [
      {
        key: p.scanId,
        value: Buffer.from(toBinary(ScanStateChangedSchema, message)),
        headers: { [EVENT_ID]: eventId, [EVENT_TYPE]: ScanStateChangedSchema.typeName },
      },
    ],
  });
  return eventId;
}

describe("gate.failed", () => {
  it("policy judges each succeeded scan once; a failing gate reaches the team once, a passing one nobody", async () => {
    const p = await scannedProject();
    // First, on the same partition, a scan of a project projects does not know: skipped, not retried forever.
    await scanSucceeded({ ...p, projectId: randomUUID() });
    const eventId = await scanSucceeded(p);
    const mine = await eventually(
      () => listOf(p.dev),
      (items) => items.some((n) => n.kind === "gate.failed"),
      30_000,
    );
    const alert = mine.find((n) => n.kind === "gate.failed")!;
    expect(alert).toMatchObject({
      severity: "high",
      projectId: p.projectId,
      scanId: p.scanId,
      teamId: p.teamId,
      title: "The build gate fails for the latest scan: critical vulnerabilities",
      link: `/projects/${p.projectId}/scans/${p.scanId}`,
    });
    expect(alert.body).toContain("CVE-2021-44228");
    expect((await listOf(p.lead)).filter((n) => n.kind === "gate.failed")).toHaveLength(1);
    expect(await listOf(p.viewer)).toHaveLength(0);
    const [failed] = await events.waitFor(GateFailedSchema, (e) => e.scanId === p.scanId);
    expect(failed!.reasons.map((r) => [r.code, r.count])).toEqual([["critical_vulnerabilities", 1]]);

    // The same state change delivered again, another event about the same scan, and GateFailed delivered again.
    await scanSucceeded(p, eventId);
    await scanSucceeded(p);
    await redeliver(GateFailedSchema.typeName, p.projectId);
    await new Promise((r) => setTimeout(r, 3_000));
    // One GateFailed from policy (the record seen twice is the test's own redelivery of it).
    const published = events.seen.filter((r) => r.type === GateFailedSchema.typeName && r.key === p.projectId);
    expect(new Set(published.map((r) => r.eventId)).size).toBe(1);
    expect((await listOf(p.dev)).filter((n) => n.kind === "gate.failed")).toHaveLength(1);
  });

  it("raises nothing for a scan whose gate passes", async () => {
    const p = await scannedProject();
    // The only critical (Log4Shell) triaged as resolved: nothing fails the gate any more.
    await resolveLog4Shell(p);
    await scanSucceeded(p);
    // A failing project's scan published after it arrives, so the passing one was judged by then.
    const q = await scannedProject();
    await scanSucceeded(q);
    await eventually(
      () => listOf(q.dev),
      (all) => all.some((n) => n.kind === "gate.failed"),
      30_000,
    );
    expect(events.seen.filter((r) => r.type === GateFailedSchema.typeName && r.key === p.projectId)).toHaveLength(0);
    expect((await listOf(p.dev)).filter((n) => n.kind === "gate.failed")).toHaveLength(0);
  });

  it("judges the newest snapshot again when an advisory update adds findings: a gate that now fails is told once", async () => {
    const p = await scannedProject();
    await resolveLog4Shell(p);
    // An advisory update reaching left-pad 1.3.0 with a new critical: no scan ran, the gate fails now.
    const vulns = await refreshAddsTwo();
    const mine = await eventually(
      () => listOf(p.dev),
      (items) => items.some((n) => n.kind === "gate.failed"),
    );
    const alert = mine.find((n) => n.kind === "gate.failed")!;
    expect(alert).toMatchObject({
      severity: "high",
      projectId: p.projectId,
      scanId: p.scanId,
      title: "The build gate now fails after an advisory update: critical vulnerabilities",
    });
    expect(alert.body).toContain(vulns[0]!.id);
    const [failed] = await events.waitFor(GateFailedSchema, (e) => e.scanId === p.scanId);
    expect(failed!.cause).toBe("advisory_update");

    // Another update adding another critical, and the scan's own success arriving late: the snapshot was told once.
    await refreshAddsTwo();
    await scanSucceeded(p);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(
      new Set(
        events.seen.filter((r) => r.type === GateFailedSchema.typeName && r.key === p.projectId).map((r) => r.eventId),
      ).size,
    ).toBe(1);
    expect((await listOf(p.dev)).filter((n) => n.kind === "gate.failed")).toHaveLength(1);
  });
});

describe("gate.failed after late registry licenses", () => {
  it("judges the newest snapshot again when licenses arriving after the scan make a component forbidden, once", async () => {
    const p = await scannedProject();
    await resolveLog4Shell(p);
    // left-pad 1.3.0 has no license yet (an unknown license: conditional); the catalog forbids GPL-3.0-only for a
    // project whose distribution model is unset (judged as shipped every way, docs/license-catalog.md).
    // The registry's answer, recorded as the scanner-runner's late lookup records it after the scan's outcome.
    const fixtures = await fixturesOf("projects");
    const { updated } = await projects.client(ComponentStateService).recordFetchedLicenses(
      {
        projectId: p.projectId,
        scanId: p.scanId,
        licenses: [
          { purl: fixtures.purls.leftPad, expression: "GPL-3.0-only", licenseIds: ["GPL-3.0-only"], registry: "npm" },
        ],
      },
      runner,
    );
    expect(updated).toBe(1);
    const [categorised] = await events.waitFor(InventoryLicensesCategorisedSchema, (e) => e.scanId === p.scanId);
    // Changed by this categorisation, or by the snapshot's first one when that came after the licenses.
    expect(categorised).toMatchObject({ projectId: p.projectId, teamId: p.teamId });
    expect(categorised!.changed).toBeLessThanOrEqual(1);
    const mine = await eventually(
      () => listOf(p.dev),
      (items) => items.some((n) => n.kind === "gate.failed"),
    );
    expect(mine.find((n) => n.kind === "gate.failed")).toMatchObject({
      severity: "high",
      projectId: p.projectId,
      scanId: p.scanId,
      title: "The build gate now fails after licenses arrived from the package registries: forbidden licenses",
    });
    const [failed] = await events.waitFor(GateFailedSchema, (e) => e.scanId === p.scanId);
    expect(failed!.cause).toBe("license_update");
    expect(failed!.reasons.map((r) => [r.code, r.count])).toEqual([["forbidden_licenses", 1]]);

    // The scan's own success arriving after, and the same licenses recorded again: the snapshot was told once.
    await scanSucceeded(p);
    await projects.client(ComponentStateService).recordFetchedLicenses(
      {
        projectId: p.projectId,
        scanId: p.scanId,
        licenses: [{ purl: fixtures.purls.leftPad, expression: "MIT", licenseIds: ["MIT"], registry: "npm" }],
      },
      runner,
    );
    await new Promise((r) => setTimeout(r, 3_000));
    expect(
      new Set(
        events.seen.filter((r) => r.type === GateFailedSchema.typeName && r.key === p.projectId).map((r) => r.eventId),
      ).size,
    ).toBe(1);
    expect((await listOf(p.dev)).filter((n) => n.kind === "gate.failed")).toHaveLength(1);
  }, 90_000);
});

describe("gate.passed", () => {
  it("tells the team once when licenses arriving after the scan make a failed gate pass", async () => {
    const p = await scannedProject();
    await resolveLog4Shell(p);
    // The team forbids unknown licenses: the snapshot's six license-less components fail the gate at the scan.
    await policy
      .client(LicensePolicyService)
      .putTeamLicensePolicy(
        { teamId: p.teamId, policy: { unknownLicenseCategory: "forbidden" } },
        await callAs.superAdmin(randomUUID()),
      );
    await eventually(
      () =>
        projects.orm.em
          .fork()
          .getConnection()
          .execute<{ n: number }[]>(
            "select count(*)::int as n from inventory_components where scan_id = ? and license_category = 'forbidden'",
            [p.scanId],
          ),
      (rows) => rows[0]!.n === 6,
    );
    await scanSucceeded(p);
    await eventually(
      () => listOf(p.dev),
      (items) => items.some((n) => n.kind === "gate.failed"),
    );

    // The registries state MIT for every one of them (recorded as the scanner-runner's late lookup records them).
    const fixtures = await fixturesOf("projects");
    await projects.client(ComponentStateService).recordFetchedLicenses(
      {
        projectId: p.projectId,
        scanId: p.scanId,
        licenses: Object.values(fixtures.purls).map((purl) => ({
          purl,
          expression: "MIT",
          licenseIds: ["MIT"],
          registry: "npm",
        })),
      },
      runner,
    );
    const mine = await eventually(
      () => listOf(p.dev),
      (items) => items.some((n) => n.kind === "gate.passed"),
    );
    expect(mine.find((n) => n.kind === "gate.passed")).toMatchObject({
      projectId: p.projectId,
      scanId: p.scanId,
      title: "The build gate now passes after licenses arrived from the package registries",
    });
    const [passed] = await events.waitFor(GatePassedSchema, (e) => e.scanId === p.scanId);
    expect(passed).toMatchObject({ projectId: p.projectId, teamId: p.teamId, cause: "license_update" });
    expect(await listOf(p.viewer)).toHaveLength(0);

    // The same event again: nobody is told twice.
    await redeliver(GatePassedSchema.typeName, p.projectId);
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await listOf(p.lead)).filter((n) => n.kind === "gate.passed")).toHaveLength(1);
    expect((await listOf(p.dev)).filter((n) => n.kind === "gate.passed")).toHaveLength(1);
  }, 90_000);
});

/** The fixture's only critical (Log4Shell) triaged as resolved by the project's developer: the gate passes. */
async function resolveLog4Shell(p: { projectId: string; teamId: string; organizationId: string; dev: string }) {
  const findings = projects.client(VulnerabilityFindingService);
  const dev = await callAs.user(p.dev, {
    memberships: [{ team_id: p.teamId, organization_id: p.organizationId, role: "developer" }],
  });
  const { items } = await findings.listVulnerabilityFindings({ projectId: p.projectId, limit: 100 }, dev);
  const log4shell = items.find((f) => f.vulnerabilityId === "CVE-2021-44228")!;
  await findings.updateFindingStatus(
    { findingId: log4shell.id, expectedVersion: 1, status: "resolved", responses: [] },
    dev,
  );
}
