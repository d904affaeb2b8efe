// What the notifier's end-to-end tests arrange in identity and projects: a team with a developer (who receives the
// team's alerts by default) and a viewer (who does not), and a project of that team.
import { randomUUID } from "node:crypto";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { callAs, fixturesOf, type TestService } from "@sca/testkit";

export async function teamWithProject(
  identity: TestService,
  projects: TestService,
  name: string,
): Promise<{ teamId: string; dev: string; viewer: string; projectId: string }> {
  const admin = await callAs.superAdmin(randomUUID());
  const directory = identity.client(DirectoryService);
  const people = await fixturesOf("identity");
  const suffix = randomUUID().slice(0, 8);
  const { team } = await directory.createTeam({ name, slug: `t-${suffix}` }, admin);
  const dev = await people.user(identity.orm, {});
  await directory.addTeamMember({ teamId: team!.id, userId: dev, role: "developer" }, admin);
  const viewer = await people.user(identity.orm, {});
  await directory.addTeamMember({ teamId: team!.id, userId: viewer, role: "viewer" }, admin);
  const slug = `p-${suffix}`;
  const { project } = await projects
    .client(ProjectService)
    .createProject({ project: { name: `${name} ${slug}`, slug, teamId: team!.id } }, admin);
  return { teamId: team!.id, dev, viewer, projectId: project!.id };
}
