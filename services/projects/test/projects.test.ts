// ProjectService through the real servers: projects and the identity it asks for names, PostgreSQL, Kafka.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Code } from "@connectrpc/connect";
import { AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import {
  ProjectArchivedSchema,
  ProjectCreatedSchema,
  ProjectUpdatedSchema,
} from "@sca/proto/sca/events/v1/projects_pb.ts";
import { toJsonString } from "@bufbuild/protobuf";
import { ProjectSchema, type Project, type ProjectInput } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { callAs, type CallOptions } from "@sca/testkit";
import { startProjects, type ProjectsHarness, type TeamFixture } from "./support/projects-harness.ts";

let h: ProjectsHarness;
let parent: TeamFixture;
let team: TeamFixture;
let other: TeamFixture;
let creatorId: string;
let developer: CallOptions;
let viewer: CallOptions;
let teamAdmin: CallOptions;
let outsider: CallOptions;

const slug = () => `p-${randomUUID().slice(0, 8)}`;
const input = (t: TeamFixture, extra: Partial<ProjectInput> = {}) => ({
  name: `Project ${slug()}`,
  slug: slug(),
  teamId: t.id,
  ...extra,
});

beforeAll(async () => {
  h = await startProjects();
  parent = await h.team();
  team = await h.team(parent);
  other = await h.team();
  creatorId = await h.account("Dana Developer");
  developer = await h.as(creatorId, [[team, "developer"]]);
  viewer = await h.as(randomUUID(), [[team, "viewer"]]);
  teamAdmin = await h.as(randomUUID(), [[team, "team_admin"]]);
  outsider = await h.as(randomUUID(), [[other, "team_admin"]]);
}, 60_000);

afterAll(() => h?.close());

async function created(opts: CallOptions, body = input(team)): Promise<Project> {
  return (await h.client.createProject({ project: body }, opts)).project!;
}

describe("create", () => {
  it("answers every field, with the team's name and group path and the creator's name from identity", async () => {
    const body = input(team, {
      description: "Payments API",
      defaultBranch: "main",
      gitUrl: "https://git.example.com/pay/api.git",
      businessUnit: "Payments",
      declaredLicense: "Apache-2.0 OR MIT",
      distributionModel: "saas",
      aiUsageContext: "internal",
      ownerContact: "pay@example.com",
    });
    const p = await created(developer, body);
    expect(p).toMatchObject({
      name: body.name,
      slug: body.slug,
      teamId: team.id,
      teamName: team.name,
      groupPath: [parent.name, team.name],
      visibility: "team",
      description: "Payments API",
      defaultBranch: "main",
      gitUrl: body.gitUrl,
      businessUnit: "Payments",
      declaredLicense: "Apache-2.0 OR MIT",
      distributionModel: "saas",
      aiUsageContext: "internal",
      ownerContact: "pay@example.com",
      hasGitCredential: false,
      createdByUserId: creatorId,
      createdByUserName: "Dana Developer",
      organizationId: team.organizationId,
      scanCount: 0,
      releaseCount: 0,
      severitySummary: {},
      licenseCategorySummary: {},
    });
    expect(p.archivedAt).toBeUndefined();
    expect(p.lastScanAt).toBeUndefined();
    expect(p.latestScanId).toBeUndefined();
    expect(p.latestScanStatus).toBeUndefined();
  });

  it("needs developer or above on the team; super_admin anywhere", async () => {
    await expect(created(viewer)).rejects.toMatchObject({ code: Code.PermissionDenied });
    await expect(created(outsider)).rejects.toMatchObject({ code: Code.PermissionDenied });
    await expect(h.client.createProject({ project: input(team) })).rejects.toMatchObject({
      code: Code.Unauthenticated,
    });
    expect((await created(teamAdmin)).teamId).toBe(team.id);
    expect((await created(await h.superAdmin(), input(other))).teamId).toBe(other.id);
  });

  it("refuses bad fields (422), an unknown team (422 for super_admin, 403 for others) and a taken slug (409)", async () => {
    const bad = [
      { name: "" },
      { name: "x".repeat(256) },
      { slug: "" },
      { slug: "Has Space" },
      { slug: "s".repeat(65) },
      { teamId: "nope" },
      { visibility: "public" },
      { distributionModel: "shipped" },
      { aiUsageContext: "all" },
      { declaredLicense: "MIT AND" },
      { gitUrl: "ftp://example.com/x" },
      { gitUrl: "https://user:secret@example.com/x.git" },
    ];
    for (const extra of bad)
      await expect(created(developer, input(team, extra))).rejects.toMatchObject({ code: Code.InvalidArgument });
    await expect(created(await h.superAdmin(), input({ ...team, id: randomUUID() }))).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    await expect(created(developer, input({ ...team, id: randomUUID() }))).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    const first = await created(developer);
    await expect(created(developer, input(team, { slug: first.slug }))).rejects.toMatchObject({
      code: Code.AlreadyExists,
    });
    // The same slug in another team is another project.
    expect((await created(await h.superAdmin(), input(other, { slug: first.slug }))).slug).toBe(first.slug);
  });

  it("writes ProjectCreated and an audit event to the outbox", async () => {
    const p = await created(developer);
    const [event] = await h.domainEvents.waitFor(ProjectCreatedSchema, (e) => e.project?.projectId === p.id);
    expect(event!.project).toMatchObject({
      teamId: team.id,
      organizationId: team.organizationId,
      name: p.name,
      slug: p.slug,
      visibility: "team",
      archived: false,
    });
    expect(event!.createdByUserId).toBe(creatorId);
    const [audit] = await h.auditEvents.waitFor(
      AuditEventSchema,
      (e) => e.targetId === p.id && e.action === "project.created",
    );
    expect(audit).toMatchObject({ source: "projects", targetTable: "projects", teamId: team.id, outcome: "success" });
    expect(audit!.actor?.userId).toBe(creatorId);
  });
});

describe("get: 404 missing, 403 not a member", () => {
  it("shows a project to its team, and to super_admin", async () => {
    const p = await created(developer);
    for (const opts of [viewer, developer, teamAdmin, await h.superAdmin()]) {
      expect((await h.client.getProject({ projectId: p.id }, opts)).project?.id).toBe(p.id);
    }
    await expect(h.client.getProject({ projectId: p.id }, outsider)).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    await expect(h.client.getProject({ projectId: randomUUID() }, developer)).rejects.toMatchObject({
      code: Code.NotFound,
    });
    await expect(h.client.getProject({ projectId: "not-a-uuid" }, developer)).rejects.toMatchObject({
      code: Code.NotFound,
    });
  });

  it("opens an organization-visible project to members of the organization's other teams, for reading only", async () => {
    const p = await created(developer, input(team, { visibility: "organization" }));
    const sameOrg = await h.as(randomUUID(), [[other, "team_admin"]]);
    expect((await h.client.getProject({ projectId: p.id }, sameOrg)).project?.id).toBe(p.id);
    await expect(h.client.updateProject({ projectId: p.id, name: "mine" }, sameOrg)).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    await expect(h.client.archiveProject({ projectId: p.id }, sameOrg)).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    const elsewhere = await callAs.user(randomUUID(), {
      memberships: [{ team_id: randomUUID(), organization_id: randomUUID(), role: "team_admin" }],
    });
    await expect(h.client.getProject({ projectId: p.id }, elsewhere)).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
  });

  it("lets a project-scoped API key reach exactly its project", async () => {
    const mine = await created(developer);
    const sibling = await created(developer);
    const key = await callAs.apiKey(
      randomUUID(),
      {
        scope: "project",
        organization_id: null,
        team_id: team.id,
        project_id: mine.id,
        permission_breadth: "read_write",
      },
      {
        userId: creatorId,
        memberships: [{ team_id: team.id, organization_id: team.organizationId, role: "team_admin" }],
      },
    );
    expect((await h.client.getProject({ projectId: mine.id }, key)).project?.id).toBe(mine.id);
    await expect(h.client.getProject({ projectId: sibling.id }, key)).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    const listed = await h.client.listProjects({ filter: { includeArchived: true }, page: { pageSize: 100 } }, key);
    expect(listed.items.map((p) => p.id)).toEqual([mine.id]);
    await expect(h.client.createProject({ project: input(team) }, key)).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    await expect(h.client.updateProject({ projectId: sibling.id, ownerContact: "x" }, key)).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    expect(
      (await h.client.updateProject({ projectId: mine.id, ownerContact: "ops@example.com" }, key)).project
        ?.ownerContact,
    ).toBe("ops@example.com");
  });
});

describe("update (PATCH)", () => {
  it("needs team_admin: 403 for developer and viewer, 403 outsider, 404 missing", async () => {
    const p = await created(developer);
    await expect(h.client.updateProject({ projectId: p.id, name: "x" }, developer)).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    await expect(h.client.updateProject({ projectId: p.id, name: "x" }, viewer)).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    await expect(h.client.updateProject({ projectId: p.id, name: "x" }, outsider)).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    await expect(h.client.updateProject({ projectId: randomUUID(), name: "x" }, teamAdmin)).rejects.toMatchObject({
      code: Code.NotFound,
    });
    expect(
      (await h.client.updateProject({ projectId: p.id, name: "Renamed" }, await h.superAdmin())).project?.name,
    ).toBe("Renamed");
  });

  it("leaves omitted fields, clears the clearable ones with an empty string, refuses clearing name or visibility", async () => {
    const p = await created(
      developer,
      input(team, {
        description: "d",
        businessUnit: "BU",
        declaredLicense: "MIT",
        distributionModel: "binary",
        aiUsageContext: "product",
        ownerContact: "o",
      }),
    );
    const renamed = (await h.client.updateProject({ projectId: p.id, name: "New name" }, teamAdmin)).project!;
    expect(renamed).toMatchObject({
      name: "New name",
      description: "d",
      businessUnit: "BU",
      declaredLicense: "MIT",
      distributionModel: "binary",
      aiUsageContext: "product",
      ownerContact: "o",
    });
    const cleared = (
      await h.client.updateProject(
        {
          projectId: p.id,
          businessUnit: "",
          declaredLicense: "",
          distributionModel: "",
          aiUsageContext: "",
          ownerContact: "",
        },
        teamAdmin,
      )
    ).project!;
    for (const field of [
      "businessUnit",
      "declaredLicense",
      "distributionModel",
      "aiUsageContext",
      "ownerContact",
    ] as const)
      expect(cleared[field]).toBeUndefined();
    expect(cleared.description).toBe("d");
    await expect(h.client.updateProject({ projectId: p.id, name: "" }, teamAdmin)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    await expect(h.client.updateProject({ projectId: p.id, visibility: "" }, teamAdmin)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    await expect(
      h.client.updateProject({ projectId: p.id, distributionModel: "everywhere" }, teamAdmin),
    ).rejects.toMatchObject({ code: Code.InvalidArgument });
  });

  it("keeps git_credential write-only and encrypted at rest; clearing it with a new one is 422", async () => {
    const p = await created(developer);
    const secret = `ghp_${randomUUID()}`;
    const set = (await h.client.updateProject({ projectId: p.id, gitCredential: secret }, teamAdmin)).project!;
    expect(set.hasGitCredential).toBe(true);
    expect(toJsonString(ProjectSchema, set)).not.toContain(secret);
    const [row] = await h.projects.orm.em
      .getConnection()
      .execute<{ git_credential_sealed: string }[]>(`select * from "${h.projects.schema}".projects where id = ?`, [
        p.id,
      ]);
    expect(row!.git_credential_sealed).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(
      toJsonString(ProjectSchema, (await h.client.getProject({ projectId: p.id }, teamAdmin)).project!),
    ).not.toContain(secret);
    await expect(
      h.client.updateProject({ projectId: p.id, gitCredential: "other", clearGitCredential: true }, teamAdmin),
    ).rejects.toMatchObject({ code: Code.InvalidArgument });
    // An empty credential leaves the stored one; clear removes it.
    expect(
      (await h.client.updateProject({ projectId: p.id, gitCredential: "", name: "still" }, teamAdmin)).project
        ?.hasGitCredential,
    ).toBe(true);
    expect(
      (await h.client.updateProject({ projectId: p.id, gitCredential: "", clearGitCredential: true }, teamAdmin))
        .project?.hasGitCredential,
    ).toBe(false);
    const [after] = await h.projects.orm.em
      .getConnection()
      .execute<{ git_credential_sealed: string | null }[]>(
        `select git_credential_sealed from "${h.projects.schema}".projects where id = ?`,
        [p.id],
      );
    expect(after!.git_credential_sealed).toBeNull();
    const audits = await h.auditEvents.waitFor(
      AuditEventSchema,
      (e) => e.targetId === p.id && e.action === "project.updated",
      3,
    );
    expect(audits.map((a) => a.details.git_credential).filter(Boolean)).toEqual(["set", "cleared"]);
    for (const a of audits) expect(JSON.stringify(a.details)).not.toContain(secret);
  });

  it("emits ProjectUpdated naming the changed fields, and nothing for a change that changes nothing", async () => {
    const p = await created(developer);
    await h.client.updateProject({ projectId: p.id, name: p.name }, teamAdmin);
    await h.client.updateProject({ projectId: p.id, visibility: "organization", ownerContact: "x" }, teamAdmin);
    const [event] = await h.domainEvents.waitFor(ProjectUpdatedSchema, (e) => e.project?.projectId === p.id);
    expect(event!.changedFields).toEqual(["visibility", "owner_contact"]);
    expect(event!.project?.visibility).toBe("organization");
    await new Promise((r) => setTimeout(r, 500));
    expect(h.domainEvents.seen.filter((r) => r.key === p.id && r.type === ProjectUpdatedSchema.typeName)).toHaveLength(
      1,
    );
  });
});

describe("archive", () => {
  it("needs developer; soft-deletes; hides from the list unless include_archived; refuses later updates", async () => {
    const p = await created(developer);
    await expect(h.client.archiveProject({ projectId: p.id }, viewer)).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    await expect(h.client.archiveProject({ projectId: p.id }, outsider)).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    await expect(h.client.archiveProject({ projectId: randomUUID() }, developer)).rejects.toMatchObject({
      code: Code.NotFound,
    });
    const archived = (await h.client.archiveProject({ projectId: p.id }, developer)).project!;
    expect(archived.archivedAt).toBeDefined();
    expect((await h.client.archiveProject({ projectId: p.id }, developer)).project?.archivedAt).toEqual(
      archived.archivedAt,
    );
    const visible = await h.client.listProjects({ filter: { teamId: team.id, q: p.slug } }, developer);
    expect(visible.items).toHaveLength(0);
    const all = await h.client.listProjects(
      { filter: { teamId: team.id, q: p.slug, includeArchived: true } },
      developer,
    );
    expect(all.items.map((x) => x.id)).toEqual([p.id]);
    await expect(h.client.updateProject({ projectId: p.id, name: "x" }, teamAdmin)).rejects.toMatchObject({
      code: Code.AlreadyExists,
    });
    // The slug is free again.
    expect((await created(developer, input(team, { slug: p.slug }))).slug).toBe(p.slug);
    const [event] = await h.domainEvents.waitFor(ProjectArchivedSchema, (e) => e.project?.projectId === p.id);
    expect(event!.project?.archived).toBe(true);
    await h.auditEvents.waitFor(AuditEventSchema, (e) => e.targetId === p.id && e.action === "project.archived");
  });
});

describe("list and export", () => {
  let listTeam: TeamFixture;
  let member: CallOptions;
  const made: Project[] = [];

  beforeAll(async () => {
    listTeam = await h.team();
    member = await h.as(randomUUID(), [[listTeam, "developer"]]);
    const bodies = [
      { name: "Alpha web", slug: "alpha-web", businessUnit: "Retail", distributionModel: "saas" },
      { name: "Beta Service", slug: "beta-svc", businessUnit: "retail" },
      { name: "Gamma", slug: "gamma-lib", businessUnit: "Payments", distributionModel: "binary" },
      { name: "Delta_%", slug: "delta", distributionModel: "saas" },
    ];
    for (const b of bodies) made.push(await created(member, { ...b, teamId: listTeam.id }));
  });

  // The team's rows (organization-visible projects of other tests' teams are in the caller's organization too).
  const ids = async (filter: object, opts = member) =>
    (
      await h.client.listProjects({ filter: { teamId: listTeam.id, ...filter }, page: { pageSize: 100 } }, opts)
    ).items.map((p) => p.slug);

  it("shows only the caller's teams (and organization-visible projects of its organization), ordered by name; super_admin sees all", async () => {
    const everything = (await h.client.listProjects({ page: { pageSize: 100 } }, member)).items;
    expect(everything.filter((p) => p.teamId === listTeam.id).map((p) => p.slug)).toEqual([
      "alpha-web",
      "beta-svc",
      "delta",
      "gamma-lib",
    ]);
    for (const p of everything) expect(p.teamId === listTeam.id || p.visibility === "organization").toBe(true);
    expect(everything.some((p) => p.visibility === "organization" && p.teamId === team.id)).toBe(true);
    expect(await ids({ teamId: listTeam.id }, developer)).toEqual([]);
    expect(await ids({ teamId: listTeam.id }, await h.superAdmin())).toEqual([
      "alpha-web",
      "beta-svc",
      "delta",
      "gamma-lib",
    ]);
    expect((await h.client.listProjects({}, await callAs.user(randomUUID()))).items).toEqual([]);
  });

  it("filters by team_id, q, business_unit and distribution_model (or unset)", async () => {
    expect(await ids({ teamId: listTeam.id })).toHaveLength(4);
    expect(await ids({ teamId: randomUUID() })).toEqual([]);
    expect(await ids({ q: "SERV" })).toEqual(["beta-svc"]);
    expect(await ids({ q: "lib" })).toEqual(["gamma-lib"]);
    expect(await ids({ q: "_%" })).toEqual(["delta"]);
    expect(await ids({ businessUnit: "RETAIL" })).toEqual(["alpha-web", "beta-svc"]);
    expect(await ids({ distributionModel: "saas" })).toEqual(["alpha-web", "delta"]);
    expect(await ids({ distributionModel: "unset" })).toEqual(["beta-svc"]);
    await expect(ids({ distributionModel: "shipped" })).rejects.toMatchObject({ code: Code.InvalidArgument });
    await expect(ids({ teamId: "x" })).rejects.toMatchObject({ code: Code.InvalidArgument });
  });

  it("pages with size 1..100 (default 20) and page 1..1000000, rejected past the bounds", async () => {
    const filter = { teamId: listTeam.id };
    const page = await h.client.listProjects({ filter, page: { page: 2, pageSize: 3 } }, member);
    expect(page.page).toMatchObject({ total: 4, page: 2, pageSize: 3 });
    expect(page.items.map((p) => p.slug)).toEqual(["gamma-lib"]);
    expect((await h.client.listProjects({ filter }, member)).page).toMatchObject({ page: 1, pageSize: 20, total: 4 });
    for (const bad of [{ pageSize: 101 }, { pageSize: -1 }, { page: 1_000_001 }, { page: -2 }]) {
      await expect(h.client.listProjects({ page: bad }, member)).rejects.toMatchObject({ code: Code.InvalidArgument });
    }
  });

  it("exports the list's rows, in the list's order, for the same filter", async () => {
    for (const filter of [{}, { businessUnit: "retail" }, { distributionModel: "unset" }, { includeArchived: true }]) {
      const rows: Project[] = [];
      for await (const chunk of h.client.exportProjects({ filter }, member)) rows.push(...chunk.items);
      const listed = await h.client.listProjects({ filter, page: { pageSize: 100 } }, member);
      expect(rows).toEqual(listed.items);
    }
  });
});

describe("batch create", () => {
  it("creates every row in order: all succeed (already_exists included) gives all_succeeded", async () => {
    const first = input(team);
    const answer = await h.client.batchCreateProjects(
      { projects: [first, input(team), { ...first, name: "again" }] },
      developer,
    );
    expect(answer).toMatchObject({
      allSucceeded: true,
      total: 3,
      created: 2,
      alreadyExisted: 1,
      failed: 0,
      failedByStatus: {},
    });
    expect(answer.rows.map((r) => [r.index, r.status])).toEqual([
      [0, "created"],
      [1, "created"],
      [2, "already_exists"],
    ]);
    expect(answer.rows[2]!.projectId).toBe(answer.rows[0]!.projectId);
    const again = await h.client.batchCreateProjects({ projects: [first] }, developer);
    expect(again).toMatchObject({ allSucceeded: true, created: 0, alreadyExisted: 1, total: 1 });
  });

  it("answers each failed row with its status and detail, and counts them by status", async () => {
    const answer = await h.client.batchCreateProjects(
      {
        projects: [input(team), input(other), input(team, { slug: "Bad Slug" }), input(team)],
      },
      developer,
    );
    expect(answer).toMatchObject({
      allSucceeded: false,
      total: 4,
      created: 2,
      alreadyExisted: 0,
      failed: 2,
      failedByStatus: { forbidden: 1, invalid: 1 },
    });
    expect(answer.rows.map((r) => r.status)).toEqual(["created", "forbidden", "invalid", "created"]);
    expect(answer.rows[2]!.detail).toContain("body.projects[2].slug");
    expect(answer.rows[1]!.projectId).toBeUndefined();
  });

  it("takes 1 to 200 rows", async () => {
    await expect(h.client.batchCreateProjects({ projects: [] }, developer)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    const rows = Array.from({ length: 201 }, () => input(team));
    await expect(h.client.batchCreateProjects({ projects: rows }, developer)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
  });
});
