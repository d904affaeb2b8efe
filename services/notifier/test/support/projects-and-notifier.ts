// A real identity, projects (over a temporary artefact directory) and notifier sharing one topic prefix, as in a
// deployment: projects' outbox events are the ones the notifier turns into alerts.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeTogether, startService, uniqueName, type TestService } from "@sca/testkit";
import { service } from "../../src/service.ts";

export interface ProjectsAndNotifier {
  identity: TestService;
  projects: TestService;
  notifier: TestService;
  /** The projects service's ARTEFACT_DIR. */
  dir: string;
  close(): Promise<void>;
}

/** `name` tells the topic prefix and the directory apart; `projectsSeams`, what the test replaces in projects. */
export async function startProjectsAndNotifier(
  name: string,
  projectsSeams: Record<string, unknown> = {},
): Promise<ProjectsAndNotifier> {
  const KAFKA_TOPIC_PREFIX = `${uniqueName(`notifier_${name}`)}.`;
  const dir = await mkdtemp(join(tmpdir(), `sca-${name}-alerts-`));
  const identity = await startService("identity", { env: { KAFKA_TOPIC_PREFIX } });
  const projects = await startService("projects", {
    env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX, ARTEFACT_DIR: dir },
    seams: projectsSeams,
  });
  const notifier = await startService(service, { env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX } });
  return {
    identity,
    projects,
    notifier,
    dir,
    async close() {
      await closeTogether([notifier, projects, identity]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
