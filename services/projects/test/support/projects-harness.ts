// The projects service started by the test kit, with the identity it asks for team and user names (started by
// name, as production runs it) and the fixtures its tests share: teams and named accounts made through identity's
// directory, callers with roles on those teams, readers of the events projects writes to its outbox. With `policy`,
// the policy service too (the gate's judge of the dashboards' daily rows): projects is told its port, picked first.
import { randomUUID } from "node:crypto";
import type { Client } from "@connectrpc/connect";
import { TOPICS } from "@sca/kafka";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import type { Role } from "@sca/rpc";
import {
  closeTogether,
  callAs,
  EventReader,
  freePort,
  startService,
  type CallOptions,
  type TestService,
} from "@sca/testkit";
import { service, type ProjectsSeams } from "../../src/service.ts";

export interface TeamFixture {
  id: string;
  name: string;
  organizationId: string;
}

export interface ProjectsHarness {
  projects: TestService;
  identity: TestService;
  /** Started when asked for (`policy: true`). */
  policy: TestService | null;
  client: Client<typeof ProjectService>;
  /** A team in identity's directory (under `parent` when given). */
  team(parent?: TeamFixture): Promise<TeamFixture>;
  /** An account in identity with this full name (a service account: it has a name and never signs in). */
  account(name: string): Promise<string>;
  /** Call options of a person holding `role` on each of the teams. */
  as(userId: string, roles: [TeamFixture, Role][]): Promise<CallOptions>;
  superAdmin(userId?: string): Promise<CallOptions>;
  domainEvents: EventReader;
  auditEvents: EventReader;
  close(): Promise<void>;
}

/**
 * `env`: more of the projects service's keys (ARTEFACT_DIR, ...); `seams`: its timings (the SLA sweep's); `policy`:
 * start the policy service as well.
 */
export async function startProjects(
  env: Record<string, string> = {},
  seams?: Partial<ProjectsSeams>,
  options: { policy?: boolean } = {},
): Promise<ProjectsHarness> {
  const identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
  });
  const policyPort = options.policy ? await freePort() : null;
  const projects = await startService(service, {
    env: {
      IDENTITY_RPC_URL: identity.url!,
      ...(policyPort ? { POLICY_RPC_URL: `http://127.0.0.1:${policyPort}` } : {}),
      ...env,
    },
    ...(seams ? { seams } : {}),
  });
  const policy = policyPort
    ? await startService("policy", {
        env: { IDENTITY_RPC_URL: identity.url!, PROJECTS_RPC_URL: projects.url!, RPC_PORT: String(policyPort) },
      })
    : null;
  const directory = identity.client(DirectoryService);
  const admin = await callAs.superAdmin(randomUUID());
  const [domainEvents, auditEvents] = await Promise.all([
    EventReader.start(projects.kafka!, TOPICS.domainEvents),
    EventReader.start(projects.kafka!, TOPICS.auditEvents),
  ]);
  return {
    projects,
    identity,
    policy,
    client: projects.client(ProjectService),
    domainEvents,
    auditEvents,
    async team(parent) {
      const slug = `team-${randomUUID().slice(0, 8)}`;
      const { team } = await directory.createTeam(
        { name: `Team ${slug}`, slug, ...(parent ? { parentGroupId: parent.id } : {}) },
        admin,
      );
      return { id: team!.id, name: team!.name, organizationId: team!.organizationId! };
    },
    async account(name) {
      const { user } = await directory.createServiceAccount({ name }, admin);
      return user!.id;
    },
    as(userId, roles) {
      return callAs.user(userId, {
        memberships: roles.map(([t, role]) => ({ team_id: t.id, organization_id: t.organizationId, role })),
      });
    },
    superAdmin: (userId = randomUUID()) => callAs.superAdmin(userId),
    async close() {
      await Promise.all([domainEvents.stop(), auditEvents.stop()]);
      await closeTogether([...(policy ? [policy] : []), projects, identity]);
    },
  };
}
