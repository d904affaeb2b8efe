// The services a source scan passes through, started for a gateway test on one topic prefix and artefact directory:
// identity, projects, the scan-orchestrator (one attempt: a failure is the answer at once), a scanner-runner that may
// clone from localhost, an EventReader on the scan events and the gateway; and a team_admin with an access token.
// On request also policy (the gate), which projects and the gateway then ask.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TOPICS } from "@sca/kafka";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import {
  closeTogether,
  callAs,
  EventReader,
  fixturesOf,
  freePort,
  startService,
  uniqueName,
  type TestService,
} from "@sca/testkit";
import { startTestGateway, type TestGateway } from "../harness.ts";

export interface SourceScanStack {
  artefactDir: string;
  identity: TestService;
  projects: TestService;
  scans: TestService;
  runner: TestService;
  /** Started only with `policy: true`. */
  policy: TestService | null;
  events: EventReader;
  gateway: TestGateway;
  teamId: string;
  /** The team_admin's access token. */
  dev: string;
  close(): Promise<void>;
}

export async function startSourceScanStack(opts: {
  /** Names the topic prefix and the artefact directory. */
  name: string;
  personName: string;
  /** The scanner-runner's keys beyond the stack's own. */
  runnerEnv?: Record<string, string>;
  /** Projects' keys beyond the stack's own. */
  projectsEnv?: Record<string, string>;
  /** Also start policy, for what asks the gate. */
  policy?: boolean;
}): Promise<SourceScanStack> {
  const artefactDir = await mkdtemp(join(tmpdir(), `sca-${opts.name}-`));
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const KAFKA_TOPIC_PREFIX = `${uniqueName(opts.name.replaceAll("-", "_"))}.`;
  const store = { ARTEFACT_DIR: artefactDir };
  const identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  // Projects and policy call each other: policy listens on a port picked first (as gate-stack.ts).
  const policyPort = opts.policy ? await freePort() : null;
  const projects = await startService("projects", {
    env: {
      IDENTITY_RPC_URL: identity.url!,
      KAFKA_TOPIC_PREFIX,
      ...store,
      ...(policyPort === null ? {} : { POLICY_RPC_URL: `http://127.0.0.1:${policyPort}` }),
      ...opts.projectsEnv,
    },
  });
  const policy =
    policyPort === null
      ? null
      : await startService("policy", {
          env: {
            KAFKA_TOPIC_PREFIX,
            IDENTITY_RPC_URL: identity.url!,
            PROJECTS_RPC_URL: projects.url!,
            RPC_PORT: String(policyPort),
          },
        });
  const scans = await startService("scan-orchestrator", {
    env: { PROJECTS_RPC_URL: projects.url!, KAFKA_TOPIC_PREFIX, ...store, SCAN_JOB_MAX_ATTEMPTS: "1" },
  });
  const runner = await startService("scanner-runner", {
    env: {
      PROJECTS_RPC_URL: projects.url!,
      KAFKA_TOPIC_PREFIX,
      ...store,
      SCAN_GIT_ALLOWED_HOSTS: "localhost",
      ...opts.runnerEnv,
    },
  });
  const events = await EventReader.start(runner.kafka!, TOPICS.scanEvents);
  const gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: {
      projects: projects.url!,
      "scan-orchestrator": scans.url!,
      ...(policy ? { policy: policy.url! } : {}),
    },
    env: store,
  });
  const fixtures = await fixturesOf("identity");
  const admin = await callAs.superAdmin(randomUUID());
  const slug = `team-${randomUUID().slice(0, 8)}`;
  const { team } = await identity.client(DirectoryService).createTeam({ name: `Team ${slug}`, slug }, admin);
  const teamId = team!.id;
  const userId = await fixtures.user(identity.orm, { fullName: opts.personName });
  await identity.client(DirectoryService).addTeamMember({ teamId, userId, role: "team_admin" }, admin);
  const dev = await fixtures.accessToken(userId);
  return {
    artefactDir,
    identity,
    projects,
    scans,
    runner,
    policy,
    events,
    gateway,
    teamId,
    dev,
    async close() {
      await events.stop();
      await closeTogether([gateway, runner, scans, ...(policy ? [policy] : []), projects, identity]);
      await rm(artefactDir, { recursive: true, force: true });
    },
  };
}
