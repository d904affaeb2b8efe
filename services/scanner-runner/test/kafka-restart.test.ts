// Kafka restarted mid-scan (issue 6): the scan still completes once, with one inventory. The broker is one of
// this test's own (the shared one is everybody's and is never stopped): identity, projects, the scan-orchestrator
// and the scanner-runner all run against it under one topic prefix, as a deployment does. A generated SBOM large
// enough that the job is still reading or ingesting when the broker goes down; the broker stays down until
// projects has stored the inventory (the worker's progress and outcome wait in its outbox, its offset commit
// fails), then comes back over the same log directory.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { setTimeout as delay } from "node:timers/promises";
import { bytesSource } from "@sca/artefacts";
import { rawQuery, column } from "@sca/db";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { ScanService, type Scan } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import {
  closeTogether,
  callAs,
  startKafkaBroker,
  startService,
  uniqueName,
  type TestKafkaBroker,
  type TestService,
} from "@sca/testkit";
import { service } from "../src/service.ts";
import { generateCycloneDxBom } from "./support/cyclonedx-generator.ts";
import { artefactDirectory } from "./support/scan-jobs.ts";

const COMPONENTS = 5_000;

let broker: TestKafkaBroker;
let artefacts: Awaited<ReturnType<typeof artefactDirectory>>;
let identity: TestService;
let projects: TestService;
let orchestrator: TestService;
let runner: TestService;

beforeAll(async () => {
  broker = await startKafkaBroker();
  artefacts = await artefactDirectory();
  const KAFKA_TOPIC_PREFIX = `${uniqueName("kafka_restart")}.`;
  const kafka = { KAFKA_BROKERS: broker.brokers.join(","), KAFKA_TOPIC_PREFIX };
  identity = await startService("identity", {
    env: { ...kafka, PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
  });
  projects = await startService("projects", {
    env: { ...kafka, IDENTITY_RPC_URL: identity.url!, ARTEFACT_DIR: artefacts.dir },
  });
  orchestrator = await startService("scan-orchestrator", {
    env: {
      ...kafka,
      PROJECTS_RPC_URL: projects.url!,
      ARTEFACT_DIR: artefacts.dir,
      DISK_PRESSURE_MIN_FREE_BYTES: "0",
      DISK_PRESSURE_HARD_LIMIT_PERCENT: "100",
    },
  });
  runner = await startService(service, {
    env: { ...kafka, ARTEFACT_DIR: artefacts.dir, PROJECTS_RPC_URL: projects.url! },
  });
}, 240_000);

afterAll(async () => {
  await broker?.start(); // closing services deletes their topics, which needs the broker
  await closeTogether([runner, orchestrator, projects, identity]);
  await broker?.remove();
  await artefacts?.remove();
}, 240_000);

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(200);
  }
}

const snapshotsOf = (projectId: string) =>
  rawQuery(
    projects.orm.em.fork(),
    `select scan_id, component_count from "${projects.schema}".inventory_snapshots where project_id = ?`,
    [projectId],
    { scan_id: column.text, component_count: column.integer },
  );

describe("Kafka restarted mid-scan", () => {
  it("ends the scan succeeded once, with one inventory", async () => {
    const slug = `team-${randomUUID().slice(0, 8)}`;
    const { team } = await identity
      .client(DirectoryService)
      .createTeam({ name: `Team ${slug}`, slug }, await callAs.superAdmin(randomUUID()));
    const userId = randomUUID();
    // Caller tokens are short-lived: a fresh one per call outlives the broker's restart.
    const asDeveloper = () =>
      callAs.user(userId, {
        memberships: [{ team_id: team!.id, organization_id: team!.organizationId!, role: "developer" }],
      });
    const developer = await asDeveloper();
    const { project } = await projects
      .client(ProjectService)
      .createProject({ project: { teamId: team!.id, name: `Restart ${slug}`, slug } }, developer);
    const projectId = project!.id;

    // The upload as the gateway's route stores and registers it.
    const sbom = JSON.stringify(generateCycloneDxBom({ components: COMPONENTS, seed: 6 }));
    const key = `uploads/${projectId}/${randomUUID()}`;
    const stored = await artefacts.store.put(key, bytesSource(sbom), { maxBytes: 64 * 1024 * 1024 });
    const scans = orchestrator.client(ScanService);
    const { uploadId } = await scans.registerSbomUpload(
      {
        projectId,
        artefact: { key, sizeBytes: BigInt(stored.sizeBytes), sha256: stored.sha256 },
        mediaType: "application/vnd.cyclonedx+json",
        fileName: "bom.json",
      },
      developer,
    );
    const { scan } = await scans.createScan({ projectId, kind: "sbom", sbomUploadId: uploadId }, developer);
    const scanId = scan!.id;
    const current = async () => (await scans.getScan({ scanId }, await asDeveloper())).scan!;

    await eventually("the scan to run", async () => ((await current()).status === "running" ? true : undefined));
    await broker.stop();
    // The worker goes on without Kafka: projects stores the inventory while the broker is down.
    await eventually("the inventory to be stored", async () =>
      (await snapshotsOf(projectId)).length ? true : undefined,
    );
    await broker.start();

    const finished: Scan = await eventually("the scan to finish", async () => {
      const s = await current();
      return ["succeeded", "failed", "cancelled"].includes(s.status) ? s : undefined;
    });
    expect(finished).toMatchObject({ status: "succeeded", attempt: 1, progressPercent: 100 });
    expect(finished.errorMessage).toBeUndefined();
    expect(await snapshotsOf(projectId)).toEqual([{ scan_id: scanId, component_count: COMPONENTS }]);
  }, 420_000);
});
