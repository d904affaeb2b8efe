// A real identity and a real admin service (their definitions started by the test kit) behind a real gateway, on
// ephemeral ports, sharing one topic prefix as in a deployment: identity's audit events reach admin's log through
// Kafka. People are made in identity's database, their team roles through identity's directory.
import { randomUUID } from "node:crypto";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { closeTogether, callAs, fixturesOf, startService, uniqueName, type TestService } from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { gatewayRequest, type GatewayRequest } from "./support/gateway-request.ts";

export interface AuditStack {
  identity: TestService;
  admin: TestService;
  gateway: TestGateway;
  request: GatewayRequest;
  team(): Promise<{ id: string }>;
  /** A person holding `role` on each team, and their bearer token. */
  person(roles: [string, string][]): Promise<{ id: string; token: string }>;
  superAdmin(): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

export async function startAuditStack(): Promise<AuditStack> {
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const KAFKA_TOPIC_PREFIX = `${uniqueName("audit_stack")}.`;
  const identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  const admin = await startService("admin", { env: { KAFKA_TOPIC_PREFIX } });
  const gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { admin: admin.url! },
  });
  const directory = identity.client(DirectoryService);
  const root = await callAs.superAdmin(randomUUID());
  const fixtures = await fixturesOf("identity");
  return {
    identity,
    admin,
    gateway,
    request: gatewayRequest(gateway.origin),
    async team() {
      const slug = `team-${randomUUID().slice(0, 8)}`;
      const { team } = await directory.createTeam({ name: `Team ${slug}`, slug }, root);
      return { id: team!.id };
    },
    async person(roles) {
      const id = await fixtures.user(identity.orm);
      for (const [teamId, role] of roles) await directory.addTeamMember({ teamId, userId: id, role }, root);
      return { id, token: await fixtures.accessToken(id) };
    },
    async superAdmin() {
      const id = await fixtures.user(identity.orm, { superAdmin: true });
      return { id, token: await fixtures.accessToken(id) };
    },
    async close() {
      await closeTogether([gateway, admin, identity]);
    },
  };
}
