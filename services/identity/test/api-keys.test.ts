// API keys through a real identity server: issue rules, the API-key path of Authenticate (HMAC and legacy
// bcrypt rows), revoke and narrow dropping the cached answer, expiry, holders, listing and statistics.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Code } from "@connectrpc/connect";
import bcrypt from "bcryptjs";
import { TOPICS } from "@sca/kafka";
import { AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { verifyCallerToken } from "@sca/rpc";
import { EventReader, TEST_SECRET } from "@sca/testkit";
import { generateApiKey } from "../src/domain/api-key-format.ts";
import { recordProjectFacts } from "../src/store/known-projects.ts";
import { startIdentity, type IdentityHarness } from "./support/identity-harness.ts";

let h: IdentityHarness;
let audit: EventReader;
let admin: string;
let teamA: string;
let teamB: string;
let adminA: string;
let devA: string;
let adminB: string;

/** Everything a message carries, as text, to look for leaked secrets. */
const textOf = (value: unknown) =>
  JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
/** A project of the team, as identity learns of it from projects' events. */
async function projectOf(teamId: string, archived = false): Promise<string> {
  const id = randomUUID();
  await recordProjectFacts(h.orm.em.fork(), { id, teamId, organizationId: null, archived, changedAt: new Date() });
  return id;
}
const callerOf = async (bearer: string) =>
  verifyCallerToken((await h.asBearer(bearer)).headers["x-sca-caller"]!, TEST_SECRET);

beforeAll(async () => {
  h = await startIdentity();
  audit = await EventReader.start(h.kafka, TOPICS.auditEvents);
  admin = await h.user({ superAdmin: true });
  const opts = await h.as(admin);
  teamA = (await h.directory.createTeam({ name: "A", slug: "keys-a" }, opts)).team!.id;
  teamB = (await h.directory.createTeam({ name: "B", slug: "keys-b" }, opts)).team!.id;
  [adminA, devA, adminB] = [await h.user(), await h.user(), await h.user()];
  await h.directory.addTeamMember({ teamId: teamA, userId: adminA, role: "team_admin" }, opts);
  await h.directory.addTeamMember({ teamId: teamA, userId: devA, role: "developer" }, opts);
  await h.directory.addTeamMember({ teamId: teamB, userId: adminB, role: "team_admin" }, opts);
});
afterAll(async () => {
  await audit.stop();
  await h.close();
});

describe("issuing", () => {
  it("issues a read_only team key by default; the raw key authenticates as a scoped api_key caller", async () => {
    const issued = await h.apiKeys.issueApiKey({ name: "ci", scope: "team", teamId: teamA }, await h.as(adminA));
    expect(issued.rawKey).toMatch(new RegExp(`^tos_${issued.key!.keyPrefix}_`));
    expect(issued.key).toMatchObject({
      scope: "team",
      teamId: teamA,
      permissionBreadth: "read_only",
      createdByUserId: adminA,
    });
    expect(issued.key!.expiresAt).toBeUndefined();
    const [row] = await h.orm.em
      .fork()
      .execute<{ key_hash: string; hash_format: string }[]>("select key_hash, hash_format from api_keys where id = ?", [
        issued.key!.id,
      ]);
    expect(row!.hash_format).toBe("hmac_sha256");
    // The secret is base64url and may itself contain "_": it is everything after tos_<prefix>_.
    const secret = issued.rawKey.slice(`tos_${issued.key!.keyPrefix}_`.length);
    expect(secret.length).toBeGreaterThanOrEqual(40);
    expect(row!.key_hash).not.toContain(secret);

    const caller = await callerOf(issued.rawKey);
    expect(caller).toMatchObject({
      kind: "api_key",
      user_id: adminA,
      is_superuser: false,
      api_key_id: issued.key!.id,
      api_key: { scope: "team", team_id: teamA, permission_breadth: "read_only" },
    });
    expect(caller.memberships.map((m) => m.team_id)).toEqual([teamA]);
    const touched = await h.orm.em
      .fork()
      .execute<{ last_used_at: Date | null }[]>("select last_used_at from api_keys where id = ?", [issued.key!.id]);
    expect(touched[0]!.last_used_at).not.toBeNull();
    const events = await audit.waitFor(
      AuditEventSchema,
      (e) => e.action === "api_key.issued" && e.targetId === issued.key!.id,
    );
    expect(textOf(events)).not.toContain(issued.rawKey);
  });

  it("applies who may issue which scope, hiding other teams", async () => {
    await expect(
      h.apiKeys.issueApiKey({ name: "x", scope: "team", teamId: teamA }, await h.as(devA)),
    ).rejects.toMatchObject({ code: Code.PermissionDenied });
    await expect(h.apiKeys.issueApiKey({ name: "x", scope: "org" }, await h.as(adminA))).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    // Whether an organization exists is not told to someone who may not issue org keys.
    await expect(
      h.apiKeys.issueApiKey({ name: "x", scope: "org", organizationId: randomUUID() }, await h.as(adminA)),
    ).rejects.toMatchObject({ code: Code.PermissionDenied });
    await expect(
      h.apiKeys.issueApiKey({ name: "x", scope: "team", teamId: teamB }, await h.as(adminA)),
    ).rejects.toMatchObject({ code: Code.NotFound });
    // A project key names an active project of its team.
    for (const projectId of [randomUUID(), await projectOf(teamB), await projectOf(teamA, true)]) {
      await expect(
        h.apiKeys.issueApiKey({ name: "p", scope: "project", teamId: teamA, projectId }, await h.as(devA)),
      ).rejects.toMatchObject({ code: Code.InvalidArgument });
    }
    const project = await h.apiKeys.issueApiKey(
      {
        name: "p",
        scope: "project",
        teamId: teamA,
        projectId: await projectOf(teamA),
        permissionBreadth: "read_write",
        expiresInDays: 30,
      },
      await h.as(devA),
    );
    expect(project.key).toMatchObject({ scope: "project", permissionBreadth: "read_write" });
    expect(Number(project.key!.expiresAt!.seconds) * 1000 - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const org = await h.apiKeys.issueApiKey({ name: "o", scope: "org" }, await h.as(admin));
    expect(org.key!.organizationId).toBeTruthy();
    await expect(
      h.apiKeys.issueApiKey({ name: "x", scope: "team", teamId: teamA, expiresInDays: 1826 }, await h.as(adminA)),
    ).rejects.toMatchObject({ code: Code.InvalidArgument });
  });

  it("never gives a service account's key more reach than its issuer has", async () => {
    const opts = await h.as(admin);
    const strong = (await h.directory.createServiceAccount({ name: "strong robot" }, opts)).user!.id;
    await h.directory.addTeamMember({ teamId: teamA, userId: strong, role: "team_admin" }, opts);
    // A developer may issue project keys, but not one that acts as a team_admin of the team.
    await expect(
      h.apiKeys.issueApiKey(
        { name: "x", scope: "project", teamId: teamA, projectId: await projectOf(teamA), serviceAccountId: strong },
        await h.as(devA),
      ),
    ).rejects.toMatchObject({ code: Code.PermissionDenied });
    // Through the cascade a team key reaches subteams, where the service account may rank above the issuer.
    const parent = (await h.directory.createTeam({ name: "C", slug: "keys-c" }, opts)).team!.id;
    const sub = (await h.directory.createTeam({ name: "C sub", slug: "keys-c-sub", parentGroupId: parent }, opts)).team!
      .id;
    const adminC = await h.user();
    await h.directory.addTeamMember({ teamId: parent, userId: adminC, role: "team_admin" }, opts);
    const climber = (await h.directory.createServiceAccount({ name: "climber" }, opts)).user!.id;
    await h.directory.addTeamMember({ teamId: parent, userId: climber, role: "developer" }, opts);
    await h.directory.addTeamMember({ teamId: sub, userId: climber, role: "group_admin" }, opts);
    await expect(
      h.apiKeys.issueApiKey(
        { name: "x", scope: "team", teamId: parent, serviceAccountId: climber },
        await h.as(adminC),
      ),
    ).rejects.toMatchObject({ code: Code.PermissionDenied });
    // A project key covers the project's team only, where the service account ranks below the issuer.
    const projectKey = await h.apiKeys.issueApiKey(
      { name: "cp", scope: "project", teamId: parent, projectId: await projectOf(parent), serviceAccountId: climber },
      await h.as(adminC),
    );
    expect(projectKey.key!.serviceAccountId).toBe(climber);
    // An equal or weaker role is fine, and a super_admin may give any service account a key.
    const equal = await h.apiKeys.issueApiKey(
      { name: "eq", scope: "team", teamId: teamA, serviceAccountId: strong },
      await h.as(adminA),
    );
    expect(equal.key!.serviceAccountId).toBe(strong);
    const bySuper = await h.apiKeys.issueApiKey(
      { name: "su", scope: "team", teamId: parent, serviceAccountId: climber },
      opts,
    );
    expect(bySuper.key!.serviceAccountId).toBe(climber);
    await h.apiKeys.revokeApiKey({ keyId: equal.key!.id }, opts);
  });

  it("never lets an API key manage keys", async () => {
    const { rawKey } = await h.apiKeys.issueApiKey(
      { name: "rw", scope: "team", teamId: teamA, permissionBreadth: "read_write" },
      await h.as(adminA),
    );
    await expect(
      h.apiKeys.issueApiKey({ name: "x", scope: "team", teamId: teamA }, await h.asBearer(rawKey)),
    ).rejects.toMatchObject({ code: Code.PermissionDenied });
    await expect(h.apiKeys.listApiKeys({}, await h.asBearer(rawKey))).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
  });
});

describe("authenticating", () => {
  it("refuses tampered, unknown and malformed keys", async () => {
    const { rawKey } = await h.apiKeys.issueApiKey({ name: "t", scope: "team", teamId: teamA }, await h.as(adminA));
    const tampered = rawKey.slice(0, -2) + (rawKey.endsWith("AA") ? "BB" : "AA");
    for (const bearer of [tampered, generateApiKey().raw, "tos_nope", "tos_"]) {
      await expect(h.access.authenticate({ bearer })).rejects.toMatchObject({ code: Code.Unauthenticated });
    }
  });

  it("still accepts a legacy bcrypt row and counts it in the statistics", async () => {
    const { prefix, raw } = generateApiKey();
    await h.orm.em.fork().execute(
      `insert into api_keys (id, name, scope, team_id, key_prefix, key_hash, hash_format, created_by_user_id)
       values (?, 'legacy', 'team', ?, ?, ?, 'bcrypt', ?)`,
      [randomUUID(), teamA, prefix, await bcrypt.hash(raw, 4), adminA],
    );
    expect((await callerOf(raw)).api_key).toMatchObject({ scope: "team", team_id: teamA });
    await expect(h.access.authenticate({ bearer: raw.slice(0, -1) + "x" })).rejects.toMatchObject({
      code: Code.Unauthenticated,
    });
    const stats = await h.apiKeys.getApiKeyHashStats({}, await h.as(admin));
    expect(stats.legacyBcryptCount).toBe(1);
    expect(stats.activeTotal).toBe(stats.hmacSha256Count + 1);
    await expect(h.apiKeys.getApiKeyHashStats({}, await h.as(adminA))).rejects.toMatchObject({ code: Code.NotFound });
  });

  it("refuses expired keys and keys of deactivated people; a service account's key outlives its issuer", async () => {
    const { key, rawKey } = await h.apiKeys.issueApiKey(
      { name: "e", scope: "team", teamId: teamA },
      await h.as(adminA),
    );
    await h.orm.em
      .fork()
      .execute("update api_keys set expires_at = now() - interval '1 second' where id = ?", [key!.id]);
    await expect(h.access.authenticate({ bearer: rawKey })).rejects.toMatchObject({ code: Code.Unauthenticated });

    const opts = await h.as(admin);
    const robot = (await h.directory.createServiceAccount({ name: "robot" }, opts)).user!.id;
    await h.directory.addTeamMember({ teamId: teamA, userId: robot, role: "developer" }, opts);
    const issuer = await h.user();
    await h.directory.addTeamMember({ teamId: teamA, userId: issuer, role: "team_admin" }, opts);
    const own = await h.apiKeys.issueApiKey({ name: "own", scope: "team", teamId: teamA }, await h.as(issuer));
    const sa = await h.apiKeys.issueApiKey(
      { name: "sa", scope: "team", teamId: teamA, serviceAccountId: robot },
      await h.as(issuer),
    );
    expect(sa.key!.serviceAccountId).toBe(robot);
    await h.orm.em.fork().execute("update users set is_active = false where id = ?", [issuer]);
    await expect(h.access.authenticate({ bearer: own.rawKey })).rejects.toMatchObject({ code: Code.Unauthenticated });
    const robotCaller = await callerOf(sa.rawKey);
    expect(robotCaller).toMatchObject({ user_id: robot, memberships: [{ team_id: teamA, role: "developer" }] });
    await expect(
      h.apiKeys.issueApiKey({ name: "x", scope: "team", teamId: teamB, serviceAccountId: robot }, await h.as(adminB)),
    ).rejects.toMatchObject({ code: Code.PermissionDenied });
  });
});

describe("revoking and narrowing", () => {
  const cacheKey = (prefix: string) => `${h.answerNamespace}${prefix}`;

  it("revokes softly, refuses the key at once and drops its cached answer", async () => {
    const { key, rawKey } = await h.apiKeys.issueApiKey(
      { name: "r", scope: "team", teamId: teamA },
      await h.as(adminA),
    );
    await h.redis.set(cacheKey(key!.keyPrefix), "cached answer", "EX", 30);
    await expect(h.apiKeys.revokeApiKey({ keyId: key!.id }, await h.as(devA))).rejects.toMatchObject({
      code: Code.NotFound,
    });
    await expect(h.apiKeys.revokeApiKey({ keyId: key!.id }, await h.as(adminB))).rejects.toMatchObject({
      code: Code.NotFound,
    });
    const revoked = await h.apiKeys.revokeApiKey({ keyId: key!.id }, await h.as(adminA));
    expect(revoked.key!.revokedAt).toBeDefined();
    expect(await h.redis.exists(cacheKey(key!.keyPrefix))).toBe(0);
    await expect(h.access.authenticate({ bearer: rawKey })).rejects.toMatchObject({ code: Code.Unauthenticated });
    const listed = await h.apiKeys.listApiKeys({ includeRevoked: true, teamId: teamA }, await h.as(adminA));
    expect(listed.items.find((k) => k.id === key!.id)?.revokedAt).toBeDefined();
    expect((await h.apiKeys.listApiKeys({ teamId: teamA }, await h.as(adminA))).items.map((k) => k.id)).not.toContain(
      key!.id,
    );
    await audit.waitFor(AuditEventSchema, (e) => e.action === "api_key.revoked" && e.targetId === key!.id);
  });

  it("narrows read_write to read_only one way, dropping the cached answer", async () => {
    const { key, rawKey } = await h.apiKeys.issueApiKey(
      { name: "n", scope: "team", teamId: teamA, permissionBreadth: "read_write" },
      await h.as(adminA),
    );
    expect((await callerOf(rawKey)).api_key!.permission_breadth).toBe("read_write");
    await h.redis.set(cacheKey(key!.keyPrefix), "cached answer", "EX", 30);
    await expect(
      h.apiKeys.narrowApiKey({ keyId: key!.id, permissionBreadth: "read_write" }, await h.as(adminA)),
    ).rejects.toMatchObject({ code: Code.InvalidArgument });
    const narrowed = await h.apiKeys.narrowApiKey(
      { keyId: key!.id, permissionBreadth: "read_only" },
      await h.as(adminA),
    );
    expect(narrowed.key!.permissionBreadth).toBe("read_only");
    expect(await h.redis.exists(cacheKey(key!.keyPrefix))).toBe(0);
    expect((await callerOf(rawKey)).api_key!.permission_breadth).toBe("read_only");
    await audit.waitFor(AuditEventSchema, (e) => e.action === "api_key.narrowed" && e.targetId === key!.id);
  });

  it("revokes a deleted team's keys", async () => {
    const opts = await h.as(admin);
    const doomed = (await h.directory.createTeam({ name: "Doomed", slug: "doomed" }, opts)).team!.id;
    const { rawKey } = await h.apiKeys.issueApiKey({ name: "d", scope: "team", teamId: doomed }, opts);
    await h.directory.deleteTeam({ teamId: doomed }, opts);
    await expect(h.access.authenticate({ bearer: rawKey })).rejects.toMatchObject({ code: Code.Unauthenticated });
  });
});

describe("listing", () => {
  it("shows each person only the keys they may manage, with filters and pages", async () => {
    const bKey = await h.apiKeys.issueApiKey({ name: "b", scope: "team", teamId: teamB }, await h.as(adminB));
    const seenByA = await h.apiKeys.listApiKeys({ page: { pageSize: 200 } }, await h.as(adminA));
    // Non-empty first, or `every` holds whatever the listing answers.
    expect(seenByA.items.length).toBeGreaterThan(0);
    expect(seenByA.items.every((k) => k.teamId === teamA)).toBe(true);
    expect(seenByA.items.map((k) => k.id)).not.toContain(bKey.key!.id);
    const seenByDev = await h.apiKeys.listApiKeys({}, await h.as(devA));
    expect(seenByDev.items.length).toBeGreaterThan(0);
    expect(seenByDev.items.every((k) => k.createdByUserId === devA)).toBe(true);
    const all = await h.apiKeys.listApiKeys({ scope: "team", page: { pageSize: 1, page: 2 } }, await h.as(admin));
    expect(all.page).toMatchObject({ page: 2, pageSize: 1 });
    expect(all.items).toHaveLength(1);
    expect(all.page?.total).toBeGreaterThan(2);
    await expect(h.apiKeys.listApiKeys({ page: { pageSize: 201 } }, await h.as(admin))).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    expect(textOf(all)).not.toMatch(/tos_[a-z0-9]+_/);
  });
});
