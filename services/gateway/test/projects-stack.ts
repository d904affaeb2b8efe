// A real identity and a real projects service (their definitions started by the test kit) behind a real gateway,
// all on ephemeral ports: what the project routes need end to end. People are made in identity's database, their
// roles through identity's directory, their bearer tokens as a login would issue them. Both services share a topic
// prefix, so identity's copy of projects (a team's project_count, project-scoped keys) follows projects' events.
import { randomUUID } from "node:crypto";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { closeTogether, callAs, fixturesOf, startService, uniqueName, type TestService } from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { gatewayRequest, type GatewayRequest } from "./support/gateway-request.ts";

export interface ProjectsStack {
  identity: TestService;
  projects: TestService;
  gateway: TestGateway;
  request: GatewayRequest;
  /** A team in identity's directory. */
  team(): Promise<{ id: string; name: string }>;
  /** A person (full name `name`) holding `role` on each team, and their bearer token. */
  person(roles: [string, string][], name?: string): Promise<{ id: string; token: string }>;
  superAdminToken(): Promise<string>;
  close(): Promise<void>;
}

/**
 * `projectsEnv`: more of the projects service's keys (ARTEFACT_DIR, ...); `gatewayEnv`: more of the gateway's;
 * `projectsSeams`: projects' seams replaced.
 */
export async function startProjectsStack(
  projectsEnv: Record<string, string> = {},
  gatewayEnv: Record<string, string> = {},
  projectsSeams: Record<string, unknown> = {},
): Promise<ProjectsStack> {
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  // One topic prefix for both, as in a deployment: identity reads the project events projects publishes.
  const KAFKA_TOPIC_PREFIX = `${uniqueName("projects_stack")}.`;
  const identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  const projects = await startService("projects", {
    env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX, ...projectsEnv },
    seams: projectsSeams,
  });
  const gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { projects: projects.url! },
    env: gatewayEnv,
  });
  const directory = identity.client(DirectoryService);
  const admin = await callAs.superAdmin(randomUUID());
  const fixtures = await fixturesOf("identity");
  const account = (name: string, superAdmin = false) => fixtures.user(identity.orm, { fullName: name, superAdmin });
  const token = (userId: string) => fixtures.accessToken(userId);
  return {
    identity,
    projects,
    gateway,
    request: gatewayRequest(gateway.origin),
    async team() {
      const slug = `team-${randomUUID().slice(0, 8)}`;
      const { team } = await directory.createTeam({ name: `Team ${slug}`, slug }, admin);
      return { id: team!.id, name: team!.name };
    },
    async person(roles, name = "Test Person") {
      const id = await account(name);
      for (const [teamId, role] of roles) await directory.addTeamMember({ teamId, userId: id, role }, admin);
      return { id, token: await token(id) };
    },
    superAdminToken: async () => token(await account("Admin", true)),
    async close() {
      await closeTogether([gateway, projects, identity]);
    },
  };
}
