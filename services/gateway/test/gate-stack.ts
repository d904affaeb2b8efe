// The build gate end to end: a real identity, projects, policy and scanner-runner (EPSS availability) behind a real
// gateway, one topic prefix, on ephemeral ports. Projects and policy call each other (categorisation one way, the
// gate's facts the other): policy listens on a port picked first, which projects is told.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { VulnerabilityMatchService } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import {
  closeTogether,
  callAs,
  fixturesOf,
  ingestArtefact,
  startService,
  uniqueName,
  freePort,
  type ServiceFixtures,
  type TestService,
} from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { gatewayRequest, type GatewayRequest } from "./support/gateway-request.ts";

export interface GateStack {
  identity: TestService;
  projects: TestService;
  policy: TestService;
  gateway: TestGateway;
  dir: string;
  request: GatewayRequest;
  team(): Promise<{ id: string; organizationId: string }>;
  person(roles: [string, string][], superAdmin?: boolean): Promise<{ id: string; token: string }>;
  /** A project of the team with the findings fixture ingested and matched (Log4Shell critical, EPSS 0.97, ...). */
  projectWithFindings(teamId: string, bearer: string): Promise<string>;
  /** A new succeeded scan of the project with the findings fixture, its verdicts changed by `edit`; the scan id. */
  ingestScan(
    projectId: string,
    edit?: (matches: ReturnType<ServiceFixtures["projects"]["scanMatches"]>) => void,
  ): Promise<string>;
  close(): Promise<void>;
}

/** `policyEnv`, `gatewayEnv`: more of policy's and the gateway's keys. */
export async function startGateStack(
  policyEnv: Record<string, string> = {},
  gatewayEnv: Record<string, string> = {},
): Promise<GateStack> {
  const dir = await mkdtemp(join(tmpdir(), "sca-gate-"));
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const KAFKA_TOPIC_PREFIX = `${uniqueName("gate_stack")}.`;
  const identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  const policyPort = await freePort();
  const projects = await startService("projects", {
    env: {
      KAFKA_TOPIC_PREFIX,
      IDENTITY_RPC_URL: identity.url!,
      POLICY_RPC_URL: `http://127.0.0.1:${policyPort}`,
      ARTEFACT_DIR: dir,
    },
  });
  const policy = await startService("policy", {
    env: {
      KAFKA_TOPIC_PREFIX,
      IDENTITY_RPC_URL: identity.url!,
      PROJECTS_RPC_URL: projects.url!,
      RPC_PORT: String(policyPort),
      ...policyEnv,
    },
  });
  const runner = await startService("scanner-runner", {
    env: { KAFKA_TOPIC_PREFIX, PROJECTS_RPC_URL: projects.url!, ARTEFACT_DIR: dir },
  });
  await (await fixturesOf("scanner-runner")).startUpSettled(runner.orm);
  const gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { projects: projects.url!, policy: policy.url!, "scanner-runner": runner.url! },
    env: { ARTEFACT_DIR: dir, ...gatewayEnv },
  });
  const directory = identity.client(DirectoryService);
  const root = await callAs.superAdmin(randomUUID());
  const identityFixtures = await fixturesOf("identity");
  const projectFixtures = await fixturesOf("projects");
  const stack: GateStack = {
    identity,
    projects,
    policy,
    gateway,
    dir,
    request: gatewayRequest(gateway.origin),
    async team() {
      const slug = `team-${randomUUID().slice(0, 8)}`;
      const { team } = await directory.createTeam({ name: `Team ${slug}`, slug }, root);
      return { id: team!.id, organizationId: team!.organizationId! };
    },
    async person(roles, superAdmin = false) {
      const id = await identityFixtures.user(identity.orm, { superAdmin });
      for (const [teamId, role] of roles) await directory.addTeamMember({ teamId, userId: id, role }, root);
      return { id, token: await identityFixtures.accessToken(id) };
    },
    async projectWithFindings(teamId, bearer) {
      const created = await stack.request("POST", "/v1/projects", {
        bearer,
        body: { name: "Gate", slug: `gate-${randomUUID().slice(0, 8)}`, team_id: teamId },
      });
      if (created.status !== 201) throw new Error(`project: ${created.status} ${created.text}`);
      const projectId = created.json.id as string;
      await stack.ingestScan(projectId);
      return projectId;
    },
    async ingestScan(projectId, edit) {
      const artefact = projectFixtures.findingsArtefact();
      const asRunner = await callAs.service("scanner-runner");
      const scanId = await ingestArtefact(
        projects.client(InventoryService),
        new DirectoryArtefactStore(dir),
        projectId,
        artefact,
        {
          caller: asRunner,
        },
      );
      const matches = projectFixtures.scanMatches(projectId, scanId);
      edit?.(matches);
      await projects.client(VulnerabilityMatchService).recordScanMatches(matches, asRunner);
      return scanId;
    },
    async close() {
      await closeTogether([gateway, runner, policy, projects, identity]);
      await rm(dir, { recursive: true, force: true });
    },
  };
  return stack;
}
