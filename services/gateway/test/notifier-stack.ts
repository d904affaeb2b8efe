// A real identity and a real notifier (their definitions started by the test kit) behind a real gateway, on
// ephemeral ports, sharing one topic prefix as in a deployment: what the notifier's own routes (routing rules, team
// chat webhooks) need end to end. People are made in identity's database, their team roles through its directory.
import { randomUUID } from "node:crypto";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { closeTogether, callAs, fixturesOf, startService, uniqueName, type TestService } from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { gatewayRequest, type GatewayRequest } from "./support/gateway-request.ts";

export interface NotifierStack {
  identity: TestService;
  notifier: TestService;
  gateway: TestGateway;
  request: GatewayRequest;
  /** A team in identity's directory, with the organization it sits in. */
  team(): Promise<{ id: string; organizationId: string }>;
  /** A person holding `role` on the team (none: on no team), and their bearer token. */
  person(teamId: string | null, role: string, superAdmin?: boolean): Promise<string>;
  close(): Promise<void>;
}

/** `notifierEnv`: more of the notifier's keys (TEAM_CHAT_WEBHOOK_ALLOWED_HOSTS, ...). */
export async function startNotifierStack(notifierEnv: Record<string, string> = {}): Promise<NotifierStack> {
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const KAFKA_TOPIC_PREFIX = `${uniqueName("notifier_stack")}.`;
  const identity = await startService("identity", {
    env: { KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  const notifier = await startService("notifier", {
    env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX, ...notifierEnv },
  });
  const gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { notifier: notifier.url! },
  });
  const directory = identity.client(DirectoryService);
  const root = await callAs.superAdmin(randomUUID());
  const fixtures = await fixturesOf("identity");
  return {
    identity,
    notifier,
    gateway,
    request: gatewayRequest(gateway.origin),
    async team() {
      const slug = `team-${randomUUID().slice(0, 8)}`;
      const { team } = await directory.createTeam({ name: `Team ${slug}`, slug }, root);
      return { id: team!.id, organizationId: team!.organizationId! };
    },
    async person(teamId, role, superAdmin = false) {
      const id = await fixtures.user(identity.orm, { superAdmin });
      if (teamId) await directory.addTeamMember({ teamId, userId: id, role }, root);
      return fixtures.accessToken(id);
    },
    async close() {
      await closeTogether([gateway, notifier, identity]);
    },
  };
}
