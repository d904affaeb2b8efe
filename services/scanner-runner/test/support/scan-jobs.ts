// The scanner-runner harness: an instance over a temporary artefact directory, uploads put in it as the edge puts
// them, jobs and scan news published onto the topics as the scan-orchestrator's relay publishes them.
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, toBinary, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import type { MikroORM } from "@mikro-orm/postgresql";
import { bytesSource, DirectoryArtefactStore } from "@sca/artefacts";
import { EVENT_ID, EVENT_TYPE, ProcessedEvent, uuidv7, type KafkaClient } from "@sca/kafka";
import {
  ScanJobSchema,
  ScanStateChangedSchema,
  type ScanArtefact,
  type ScanJob,
} from "@sca/proto/sca/events/v1/scans_pb.ts";
import { createLogger } from "@sca/log";
import { startServiceInstance, type ServiceInstance } from "@sca/runtime";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { callAs, TEST_SECRET, testServers, type TestService } from "@sca/testkit";
import { scanJobLanes, scanStateNews, type Lane } from "../../src/events/topics.ts";
import { service } from "../../src/service.ts";
import { sharedDir } from "./shared-dir.ts";

export async function artefactDirectory(): Promise<{
  dir: string;
  store: DirectoryArtefactStore;
  remove(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), "sca-scanner-runner-"));
  return { dir, store: new DirectoryArtefactStore(dir), remove: () => rm(dir, { recursive: true, force: true }) };
}

export function sharedSbom(path: string): Promise<Buffer> {
  return readFile(join(sharedDir(), "data/sbom", path));
}

/** Stores `bytes` as an upload of `projectId`, as the gateway's upload route does; answers the job's reference. */
export async function upload(
  store: DirectoryArtefactStore,
  projectId: string,
  bytes: Uint8Array,
): Promise<ScanArtefact> {
  const key = `uploads/${projectId}/${randomUUID()}`;
  const stored = await store.put(key, bytesSource(bytes), { maxBytes: 64 * 1024 * 1024 });
  return { $typeName: "sca.events.v1.ScanArtefact", key, sizeBytes: BigInt(stored.sizeBytes), sha256: stored.sha256 };
}

export function scanJob(fields: MessageInitShape<typeof ScanJobSchema> & { lane: Lane }): ScanJob {
  return create(ScanJobSchema, {
    eventId: uuidv7(),
    occurredAt: timestampNow(),
    scanId: randomUUID(),
    projectId: randomUUID(),
    teamId: randomUUID(),
    kind: "sbom",
    attempt: 1,
    ...fields,
  });
}

async function publish<D extends DescMessage>(
  kafka: KafkaClient,
  topic: string,
  schema: D,
  key: string,
  messages: (MessageShape<D> & { eventId: string })[],
): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  try {
    await producer.send({
      topic: kafka.topicName(topic),
      acks: -1,
      messages: messages.map((m) => ({
        key,
        value: Buffer.from(toBinary(schema, m)),
        headers: { [EVENT_ID]: m.eventId, [EVENT_TYPE]: schema.typeName },
      })),
    });
  } finally {
    await producer.disconnect();
  }
}

/** Publishes jobs onto their lane, keyed by project id as the scan-orchestrator keys them. */
export async function publishJobs(kafka: KafkaClient, lane: Lane, jobs: ScanJob[]): Promise<void> {
  for (const [projectId, ofProject] of Map.groupBy(jobs, (j) => j.projectId))
    await publish(kafka, scanJobLanes[lane].topic, ScanJobSchema, projectId, ofProject);
}

/** A ScanStateChanged as the scan-orchestrator publishes it. */
export async function publishScanState(
  kafka: KafkaClient,
  job: ScanJob,
  status: string,
  attempt = job.attempt,
): Promise<void> {
  const news = create(ScanStateChangedSchema, {
    eventId: uuidv7(),
    occurredAt: timestampNow(),
    scanId: job.scanId,
    projectId: job.projectId,
    teamId: job.teamId,
    kind: job.kind,
    status,
    attempt,
  });
  await publish(kafka, scanStateNews.topic, ScanStateChangedSchema, job.scanId, [news]);
}

/** Waits until `check` answers true (polling the database the instance writes). */
export async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether the lane's group recorded the job as applied (its transaction committed). */
export async function jobApplied(orm: MikroORM, kafka: KafkaClient, job: ScanJob): Promise<boolean> {
  const consumerGroup = `${kafka.topicPrefix}scanner-runner.${job.lane}`;
  return (await orm.em.fork().count(ProcessedEvent, { consumerGroup, eventId: job.eventId })) > 0;
}

/**
 * An instance over an existing schema and topic prefix whose close() only stops it (the test kit's drops both),
 * for the tests that stop a worker mid-job and start another on the same state.
 */
export async function startWorkerOn(
  schema: string,
  artefactDir: string,
  projectsUrl: string,
  env: Record<string, string> = {},
): Promise<ServiceInstance> {
  const servers = testServers();
  return startServiceInstance(service, {
    migrate: true,
    relayPollIntervalMs: 100,
    schema,
    logger: createLogger("scanner-runner-test", "ERROR"),
    env: {
      DATABASE_URL: servers.databaseUrl,
      KAFKA_BROKERS: servers.kafkaBrokers.join(","),
      KAFKA_TOPIC_PREFIX: `${schema}.`,
      SECRET_KEY: TEST_SECRET,
      APP_ENV: "dev",
      RPC_PORT: "0",
      ARTEFACT_DIR: artefactDir,
      PROJECTS_RPC_URL: projectsUrl,
      // No public package registry is asked in tests.
      CURRENCY_ENABLED: "false",
      ...env,
    },
  });
}

/** A project in projects (through identity's directory for its team), which an inventory can be ingested into. */
export async function makeProject(identity: TestService, projects: TestService): Promise<string> {
  const slug = `team-${randomUUID().slice(0, 8)}`;
  const { team } = await identity
    .client(DirectoryService)
    .createTeam({ name: `Team ${slug}`, slug }, await callAs.superAdmin(randomUUID()));
  const developer = await callAs.user(randomUUID(), {
    memberships: [{ team_id: team!.id, organization_id: team!.organizationId!, role: "developer" }],
  });
  const { project } = await projects
    .client(ProjectService)
    .createProject({ project: { teamId: team!.id, name: `Scanned ${slug}`, slug } }, developer);
  return project!.id;
}
