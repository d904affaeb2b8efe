// The directory's admin surface through a real identity server: teams, hierarchy moves, memberships, role
// changes and the last-super-admin rule, and the audit events they emit.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Code } from "@connectrpc/connect";
import { TOPICS } from "@sca/kafka";
import { AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { verifyCallerToken } from "@sca/rpc";
import { EventReader, TEST_SECRET } from "@sca/testkit";
import { startIdentity, type IdentityHarness } from "./support/identity-harness.ts";

let h: IdentityHarness;
let audit: EventReader;
let admin: string;

beforeAll(async () => {
  h = await startIdentity();
  audit = await EventReader.start(h.kafka, TOPICS.auditEvents);
  admin = await h.user({ superAdmin: true });
});
afterAll(async () => {
  await audit.stop();
  await h.close();
});

describe("organizations", () => {
  it("starts a fresh deployment with one default organization", async () => {
    const orgs = await h.directory.listOrganizations({}, await h.as(admin));
    expect(orgs.page).toMatchObject({ total: 1, page: 1, pageSize: 50 });
    expect(orgs.items[0]).toMatchObject({ slug: "default" });
  });

  it("answers NotFound to anyone but a super_admin", async () => {
    const someone = await h.user();
    await expect(h.directory.listOrganizations({}, await h.as(someone))).rejects.toMatchObject({ code: Code.NotFound });
    await expect(h.directory.listTeams({}, await h.as(someone))).rejects.toMatchObject({ code: Code.NotFound });
  });
});

describe("teams", () => {
  it("creates a team in the only organization, reads, updates, lists and deletes it", async () => {
    const opts = await h.as(admin);
    const { team } = await h.directory.createTeam({ name: " Payments ", slug: "payments", description: "cards" }, opts);
    expect(team).toMatchObject({
      name: "Payments",
      slug: "payments",
      description: "cards",
      projectCount: 0,
      members: [],
    });
    expect(team!.organizationId).toBeTruthy();
    await expect(h.directory.createTeam({ name: "Other", slug: "payments" }, opts)).rejects.toMatchObject({
      code: Code.AlreadyExists,
    });
    const updated = await h.directory.updateTeam({ teamId: team!.id, name: "Payments EU", description: "" }, opts);
    expect(updated.team).toMatchObject({ name: "Payments EU", slug: "payments" });
    expect(updated.team!.description).toBeUndefined();
    const found = await h.directory.listTeams({ search: "EU" }, opts);
    expect(found.items.map((t) => t.id)).toEqual([team!.id]);
    await h.directory.deleteTeam({ teamId: team!.id }, opts);
    await expect(h.directory.getTeam({ teamId: team!.id }, opts)).rejects.toMatchObject({ code: Code.NotFound });
    const events = await audit.waitFor(
      AuditEventSchema,
      (e) => e.targetId === team!.id && e.action.startsWith("team."),
      2,
    );
    expect(events.map((e) => e.action).sort()).toEqual(["team.created", "team.deleted"]);
    expect(events[0]!.actor!.userId).toBe(admin);
  });

  it("validates names and slugs and pages", async () => {
    const opts = await h.as(admin);
    await expect(h.directory.createTeam({ name: "", slug: "x" }, opts)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    await expect(h.directory.createTeam({ name: "x", slug: "s".repeat(65) }, opts)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    await expect(h.directory.listTeams({ page: { pageSize: 201 } }, opts)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
  });

  it("requires organization_id once several organizations exist", async () => {
    const opts = await h.as(admin);
    const second = "0190f0e0-0000-7000-8000-0000000000aa";
    await h.orm.em
      .fork()
      .execute("insert into organizations (id, name, slug) values (?, 'Second', 'second')", [second]);
    try {
      await expect(h.directory.createTeam({ name: "x", slug: "needs-org" }, opts)).rejects.toMatchObject({
        code: Code.InvalidArgument,
      });
      const { team } = await h.directory.createTeam({ name: "x", slug: "needs-org", organizationId: second }, opts);
      expect(team!.organizationId).toBe(second);
      await h.directory.deleteTeam({ teamId: team!.id }, opts);
    } finally {
      await h.orm.em.fork().execute("delete from organizations where id = ?", [second]);
    }
  });
});

describe("hierarchy", () => {
  it("moves a subtree and refuses cycles", async () => {
    const opts = await h.as(admin);
    const a = (await h.directory.createTeam({ name: "A", slug: "tree-a" }, opts)).team!;
    const b = (await h.directory.createTeam({ name: "B", slug: "tree-b", parentGroupId: a.id }, opts)).team!;
    const c = (await h.directory.createTeam({ name: "C", slug: "tree-c", parentGroupId: b.id }, opts)).team!;
    const d = (await h.directory.createTeam({ name: "D", slug: "tree-d" }, opts)).team!;

    await expect(h.directory.moveTeam({ teamId: a.id, newParentId: a.id }, opts)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    await expect(h.directory.moveTeam({ teamId: a.id, newParentId: c.id }, opts)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });

    const moved = await h.directory.moveTeam({ teamId: b.id, newParentId: d.id }, opts);
    expect(moved.team!.parentGroupId).toBe(d.id);
    expect((await h.directory.getTeam({ teamId: c.id }, opts)).team!.parentGroupId).toBe(b.id);
    expect((await h.directory.moveTeam({ teamId: b.id }, opts)).team!.parentGroupId).toBeUndefined();

    // A member of D reached C through the cascade while B sat under D, and no longer once B is a root.
    const member = await h.user();
    await h.directory.addTeamMember({ teamId: d.id, userId: member, role: "developer" }, opts);
    await h.directory.moveTeam({ teamId: b.id, newParentId: d.id }, opts);
    const under = await verifyCallerToken((await h.as(member)).headers["x-sca-caller"]!, TEST_SECRET);
    expect(under.memberships.map((m) => m.team_id).sort()).toEqual([b.id, c.id, d.id].sort());
    await h.directory.moveTeam({ teamId: b.id }, opts);
    const after = await verifyCallerToken((await h.as(member)).headers["x-sca-caller"]!, TEST_SECRET);
    expect(after.memberships.map((m) => m.team_id)).toEqual([d.id]);

    await expect(h.directory.deleteTeam({ teamId: b.id }, opts)).rejects.toMatchObject({ code: Code.AlreadyExists });
    const events = await audit.waitFor(AuditEventSchema, (e) => e.action === "team.moved" && e.targetId === b.id, 3);
    expect(events.some((e) => e.details.to_parent_id === d.id)).toBe(true);
  });

  it("serializes concurrent moves so they cannot close a loop together", async () => {
    const opts = await h.as(admin);
    const x = (await h.directory.createTeam({ name: "X", slug: "race-x" }, opts)).team!;
    const y = (await h.directory.createTeam({ name: "Y", slug: "race-y" }, opts)).team!;
    const results = await Promise.allSettled([
      h.directory.moveTeam({ teamId: x.id, newParentId: y.id }, opts),
      h.directory.moveTeam({ teamId: y.id, newParentId: x.id }, opts),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });
});

describe("memberships and roles", () => {
  it("adds, changes and removes members", async () => {
    const opts = await h.as(admin);
    const team = (await h.directory.createTeam({ name: "Members", slug: "members" }, opts)).team!;
    const person = await h.user();
    const added = await h.directory.addTeamMember({ teamId: team.id, userId: person, role: "viewer" }, opts);
    expect(added.team!.members).toMatchObject([{ userId: person, role: "viewer" }]);
    await expect(
      h.directory.addTeamMember({ teamId: team.id, userId: person, role: "super_admin" }, opts),
    ).rejects.toMatchObject({ code: Code.InvalidArgument });
    const changed = await h.directory.addTeamMember({ teamId: team.id, userId: person, role: "team_admin" }, opts);
    expect(changed.team!.members).toMatchObject([{ userId: person, role: "team_admin" }]);
    await h.directory.removeTeamMember({ teamId: team.id, userId: person }, opts);
    await expect(h.directory.removeTeamMember({ teamId: team.id, userId: person }, opts)).rejects.toMatchObject({
      code: Code.NotFound,
    });
    const events = await audit.waitFor(
      AuditEventSchema,
      (e) => e.teamId === team.id && e.action.startsWith("team.member_"),
      3,
    );
    expect(new Set(events.map((e) => e.action))).toEqual(new Set(["team.member_added", "team.member_removed"]));
  });

  it("applies the role-change rules", async () => {
    const opts = await h.as(admin);
    const team = (await h.directory.createTeam({ name: "Roles", slug: "roles" }, opts)).team!;
    const person = await h.user();
    await expect(h.directory.changeUserRole({ userId: person, role: "developer" }, opts)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    await expect(
      h.directory.changeUserRole({ userId: person, role: "viewer", teamId: team.id }, opts),
    ).rejects.toMatchObject({ code: Code.InvalidArgument });
    const dev = await h.directory.changeUserRole({ userId: person, role: "developer", teamId: team.id }, opts);
    expect(dev.user).toMatchObject({
      id: person,
      isSuperuser: false,
      memberships: [{ teamId: team.id, role: "developer" }],
    });
    const promoted = await h.directory.changeUserRole({ userId: person, role: "super_admin", teamId: "ignored" }, opts);
    expect(promoted.user!.isSuperuser).toBe(true);
    const demoted = await h.directory.changeUserRole({ userId: person, role: "group_admin", teamId: team.id }, opts);
    expect(demoted.user).toMatchObject({ isSuperuser: false, memberships: [{ teamId: team.id, role: "group_admin" }] });
    await audit.waitFor(AuditEventSchema, (e) => e.action === "user.role_changed" && e.targetId === person, 3);
  });

  it("refuses to demote the last super_admin, even under concurrent demotions", async () => {
    const opts = await h.as(admin);
    const team = (await h.directory.createTeam({ name: "Last", slug: "last" }, opts)).team!;
    // Leave exactly two active super_admins, then demote both at once: one must be refused.
    await h.orm.em.fork().execute("update users set is_superuser = false where id <> ?", [admin]);
    const other = await h.user({ superAdmin: true });
    const results = await Promise.allSettled([
      h.directory.changeUserRole({ userId: admin, role: "developer", teamId: team.id }, opts),
      h.directory.changeUserRole({ userId: other, role: "developer", teamId: team.id }, opts),
    ]);
    const refused = results.filter((r) => r.status === "rejected");
    expect(refused).toHaveLength(1);
    const err = (refused[0] as PromiseRejectedResult).reason as { code: Code; rawMessage: string };
    expect(err.code).toBe(Code.AlreadyExists);
    const [row] = await h.orm.em
      .fork()
      .execute<{ n: number }[]>("select count(*)::int as n from users where is_superuser");
    expect(row!.n).toBe(1);
    // Later tests act as whoever is still super_admin.
    admin = results[0].status === "fulfilled" ? other : admin;
  });
});

describe("service accounts", () => {
  it("creates a service account that cannot sign in", async () => {
    const { user } = await h.directory.createServiceAccount({ name: "CI robot" }, await h.as(admin));
    expect(user).toMatchObject({ fullName: "CI robot", isSuperuser: false, isActive: true });
    const [row] = await h.orm.em
      .fork()
      .execute<{ is_service_account: boolean; password_hash: string | null }[]>(
        "select is_service_account, password_hash from users where id = ?",
        [user!.id],
      );
    expect(row).toEqual({ is_service_account: true, password_hash: null });
  });
});
