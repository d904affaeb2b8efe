// GET /v1/projects/{id}/assignees through a real gateway, projects and identity: the members of the project's team
// holding developer or above, widened to the groups above the team by the group cascade (on by default), each once
// with their strongest role, inactive people and viewers left out; 403 for a non-member, 404 for no project.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { callAs, fixturesOf } from "@sca/testkit";
import { startProjectsStack, type ProjectsStack } from "./projects-stack.ts";

let s: ProjectsStack;

beforeAll(async () => {
  s = await startProjectsStack();
}, 60_000);

afterAll(async () => {
  await s?.close();
});

describe("project assignees", () => {
  it("are the developers and above of the team and the groups above it, each once, by name", async () => {
    const directory = s.identity.client(DirectoryService);
    const admin = await callAs.superAdmin(randomUUID());
    const parent = await s.team();
    const slug = `sub-${randomUUID().slice(0, 8)}`;
    const { team: child } = await directory.createTeam({ name: `Sub ${slug}`, slug, parentGroupId: parent.id }, admin);
    const dev = await s.person([[child!.id, "developer"]], "Dana Developer");
    const lead = await s.person([[parent.id, "group_admin"]], "Abe Lead");
    // Developer on the team, team_admin above it: listed once, with the stronger role, held above.
    const both = await s.person(
      [
        [child!.id, "developer"],
        [parent.id, "team_admin"],
      ],
      "Bea Both",
    );
    const viewer = await s.person([[child!.id, "viewer"]], "Vic Viewer");
    const fixtures = await fixturesOf("identity");
    const gone = await fixtures.user(s.identity.orm, { fullName: "Gus Gone", active: false });
    await directory.addTeamMember({ teamId: child!.id, userId: gone, role: "developer" }, admin);
    const outsider = await s.person([[(await s.team()).id, "team_admin"]]);

    const created = await s.request("POST", "/v1/projects", {
      bearer: dev.token,
      body: { name: "Assigned", slug: `assigned-${randomUUID().slice(0, 6)}`, team_id: child!.id },
    });
    expect(created.status).toBe(201);
    const path = `/v1/projects/${created.json.id as string}/assignees`;
    const r = await s.request("GET", path, { bearer: viewer.token });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      members: [
        { user_id: lead.id, display_name: "Abe Lead", role: "group_admin", via_team_id: parent.id },
        { user_id: both.id, display_name: "Bea Both", role: "team_admin", via_team_id: parent.id },
        { user_id: dev.id, display_name: "Dana Developer", role: "developer", via_team_id: child!.id },
      ],
      total: 3,
    });
    expect((await s.request("GET", path, { bearer: outsider.token })).status).toBe(403);
    expect((await s.request("GET", `/v1/projects/${randomUUID()}/assignees`, { bearer: viewer.token })).status).toBe(
      404,
    );
    expect((await s.request("GET", "/v1/projects/nope/assignees", { bearer: viewer.token })).status).toBe(422);
  });
});
