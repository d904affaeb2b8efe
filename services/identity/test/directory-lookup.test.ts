// DirectoryLookupService: names other services show, for any authenticated caller.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Code } from "@connectrpc/connect";
import { DirectoryLookupService } from "@sca/proto/sca/identity/v1/directory_lookup_pb.ts";
import { callAs, fixturesOf, startService, type TestService } from "@sca/testkit";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { service } from "../src/service.ts";

let identity: TestService;

beforeAll(async () => {
  identity = await startService(service, { listen: false });
});
afterAll(() => identity?.close());

describe("LookupDirectory", () => {
  it("answers team names, organizations and group paths root first, and user display names; unknown ids are left out", async () => {
    const admin = await callAs.superAdmin(randomUUID());
    const directory = identity.client(DirectoryService);
    const { team: top } = await directory.createTeam({ name: "Engineering", slug: "eng" }, admin);
    const { team: mid } = await directory.createTeam({ name: "Payments", slug: "pay", parentGroupId: top!.id }, admin);
    const { team: leaf } = await directory.createTeam(
      { name: "Checkout", slug: "checkout", parentGroupId: mid!.id },
      admin,
    );
    const { user } = await directory.createServiceAccount({ name: "CI bot" }, admin);
    const lookup = identity.client(DirectoryLookupService);
    const answer = await lookup.lookupDirectory(
      { teamIds: [leaf!.id, top!.id, randomUUID(), "nope"], userIds: [user!.id, randomUUID()] },
      await callAs.user(randomUUID()),
    );
    const byId = new Map(answer.teams.map((t) => [t.id, t]));
    expect(byId.get(leaf!.id)).toMatchObject({
      name: "Checkout",
      organizationId: leaf!.organizationId,
      groupPath: ["Engineering", "Payments", "Checkout"],
    });
    expect(byId.get(top!.id)?.groupPath).toEqual(["Engineering"]);
    expect(answer.teams).toHaveLength(2);
    expect(answer.users.map((u) => [u.id, u.displayName])).toEqual([[user!.id, "CI bot"]]);
  });

  it("needs an authenticated caller and at most 500 ids of each kind", async () => {
    const lookup = identity.client(DirectoryLookupService);
    await expect(lookup.lookupDirectory({ teamIds: [] })).rejects.toMatchObject({ code: Code.Unauthenticated });
    const ids = Array.from({ length: 501 }, () => randomUUID());
    await expect(lookup.lookupDirectory({ teamIds: ids }, await callAs.user(randomUUID()))).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
  });
});

describe("LookupRecipients", () => {
  it("answers the team's members holding the roles asked and the people named, active people only, each once", async () => {
    const admin = await callAs.superAdmin(randomUUID());
    const directory = identity.client(DirectoryService);
    const fixtures = await fixturesOf("identity");
    const { team } = await directory.createTeam({ name: "Recipients", slug: `r-${randomUUID().slice(0, 8)}` }, admin);
    const member = async (role: string, opts: { active?: boolean; fullName?: string } = {}) => {
      const id = await fixtures.user(identity.orm, opts);
      await directory.addTeamMember({ teamId: team!.id, userId: id, role }, admin);
      return id;
    };
    const dev = await member("developer", { fullName: "Dana Dev" });
    const lead = await member("team_admin");
    await member("viewer");
    await member("developer", { active: false });
    const { user: bot } = await directory.createServiceAccount({ name: "Bot" }, admin);
    await directory.addTeamMember({ teamId: team!.id, userId: bot!.id, role: "developer" }, admin);
    const outsider = await fixtures.user(identity.orm, { fullName: "Requester" });
    const lookup = identity.client(DirectoryLookupService);
    const asNotifier = await callAs.service("notifier");
    const answer = await lookup.lookupRecipients(
      { teamId: team!.id, roles: ["developer", "team_admin"], userIds: [outsider, dev, randomUUID(), "nope"] },
      asNotifier,
    );
    const byId = new Map(answer.recipients.map((r) => [r.userId, r]));
    expect([...byId.keys()].sort()).toEqual([dev, lead, outsider].sort());
    expect(answer.recipients).toHaveLength(3);
    expect(byId.get(dev)).toMatchObject({
      displayName: "Dana Dev",
      role: "developer",
      email: expect.stringContaining("@"),
    });
    expect(byId.get(outsider)?.role).toBeUndefined();
    await expect(
      lookup.lookupRecipients({ teamId: team!.id, roles: ["developer"] }, await callAs.user(randomUUID())),
    ).rejects.toMatchObject({ code: Code.PermissionDenied });
    await expect(lookup.lookupRecipients({ teamId: team!.id, roles: ["owner"] }, asNotifier)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
  });

  it("names every active super_admin when asked (alerts about the deployment), not inactive ones or others", async () => {
    const fixtures = await fixturesOf("identity");
    const root = await fixtures.user(identity.orm, { superAdmin: true });
    const retired = await fixtures.user(identity.orm, { superAdmin: true, active: false });
    const plain = await fixtures.user(identity.orm, {});
    const answer = await identity
      .client(DirectoryLookupService)
      .lookupRecipients({ teamId: "", superAdmins: true }, await callAs.service("notifier"));
    const ids = answer.recipients.map((r) => r.userId);
    expect(ids).toContain(root);
    expect(ids).not.toContain(retired);
    expect(ids).not.toContain(plain);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
