import { describe, expect, it } from "@jest/globals";
import bcrypt from "bcryptjs";
import type { ApiKeyGrant, Caller } from "@sca/rpc";
import { TEST_SECRET } from "@sca/testkit";
import {
  deriveApiKeyHashKey,
  generateApiKey,
  hashApiKey,
  looksLikeApiKey,
  parseApiKey,
  verifyApiKeyHash,
} from "../src/domain/api-key-format.ts";
import {
  mayIssue,
  mayManageKey,
  membershipsWithinGrant,
  narrowedBreadth,
  planIssue,
} from "../src/domain/api-key-scope.ts";

const TEAM = "0190f0e0-0000-7000-8000-00000000000a";
const SUB = "0190f0e0-0000-7000-8000-00000000000c";
const OTHER = "0190f0e0-0000-7000-8000-00000000000b";
const PROJECT = "0190f0e0-0000-7000-8000-0000000000f1";

function person(overrides: Partial<Caller> = {}): Caller {
  return {
    kind: "user",
    user_id: "u1",
    email: "u@example.com",
    is_superuser: false,
    memberships: [],
    api_key_id: null,
    api_key: null,
    ip: null,
    user_agent: null,
    ...overrides,
  };
}
const base = {
  name: "ci",
  teamId: undefined,
  projectId: undefined,
  expiresInDays: undefined,
  permissionBreadth: undefined,
};

describe("key format", () => {
  it("generates tos_<prefix>_<secret> keys that parse back to their prefix", () => {
    const { prefix, raw } = generateApiKey();
    expect(raw).toMatch(/^tos_[a-f0-9]{12}_[A-Za-z0-9_-]{43}$/);
    expect(looksLikeApiKey(raw)).toBe(true);
    expect(parseApiKey(raw)).toEqual({ prefix, raw });
    expect(generateApiKey().raw).not.toBe(raw);
  });

  it("rejects malformed keys", () => {
    for (const bad of [
      "tos_",
      "tos_abc",
      "tos_ABCDEF012345_secretsecretsecretsecret",
      "tos_abcdef012345_short",
      "xtos_abcdef012345_" + "a".repeat(43),
      "tos_abcdef012345_" + "a".repeat(43) + " ",
    ]) {
      expect(parseApiKey(bad)).toBeNull();
    }
  });

  it("verifies HMAC hashes only under the same derived key and for the same key", async () => {
    const hashKey = deriveApiKeyHashKey(TEST_SECRET);
    const { raw } = generateApiKey();
    const stored = hashApiKey(raw, hashKey);
    expect(stored).toMatch(/^[a-f0-9]{64}$/);
    expect(stored).not.toContain(raw.slice(17));
    expect(await verifyApiKeyHash(raw, stored, "hmac_sha256", hashKey)).toBe(true);
    expect(await verifyApiKeyHash(raw, stored, "hmac_sha256", deriveApiKeyHashKey(TEST_SECRET + "x"))).toBe(false);
    expect(await verifyApiKeyHash(generateApiKey().raw, stored, "hmac_sha256", hashKey)).toBe(false);
    expect(await verifyApiKeyHash(raw, "abcd", "hmac_sha256", hashKey)).toBe(false);
  });

  it("still verifies legacy bcrypt rows", async () => {
    const { raw } = generateApiKey();
    const legacy = await bcrypt.hash(raw, 4);
    const hashKey = deriveApiKeyHashKey(TEST_SECRET);
    expect(await verifyApiKeyHash(raw, legacy, "bcrypt", hashKey)).toBe(true);
    expect(await verifyApiKeyHash(generateApiKey().raw, legacy, "bcrypt", hashKey)).toBe(false);
  });
});

describe("issue requests", () => {
  it("defaults to read_only and no expiry", () => {
    expect(planIssue({ ...base, scope: "org" })).toEqual({
      ok: true,
      plan: {
        name: "ci",
        scope: "org",
        teamId: null,
        projectId: null,
        expiresInDays: null,
        permissionBreadth: "read_only",
      },
    });
  });

  it("ties team and project ids to the scope", () => {
    expect(planIssue({ ...base, scope: "org", teamId: TEAM })).toMatchObject({
      ok: false,
      violations: [{ path: "body.team_id" }],
    });
    expect(planIssue({ ...base, scope: "team" })).toMatchObject({ ok: false, violations: [{ path: "body.team_id" }] });
    expect(planIssue({ ...base, scope: "team", teamId: TEAM, projectId: PROJECT })).toMatchObject({
      ok: false,
      violations: [{ path: "body.project_id" }],
    });
    expect(planIssue({ ...base, scope: "project", teamId: TEAM })).toMatchObject({
      ok: false,
      violations: [{ path: "body.project_id" }],
    });
    expect(planIssue({ ...base, scope: "project", teamId: TEAM, projectId: PROJECT })).toMatchObject({
      ok: true,
      plan: { teamId: TEAM, projectId: PROJECT },
    });
    expect(planIssue({ ...base, scope: "everything" })).toMatchObject({
      ok: false,
      violations: [{ path: "body.scope" }],
    });
  });

  it("bounds the name, the lifetime and the breadth", () => {
    expect(planIssue({ ...base, scope: "org", name: " " })).toMatchObject({ ok: false });
    expect(planIssue({ ...base, scope: "org", name: "x".repeat(101) })).toMatchObject({ ok: false });
    expect(planIssue({ ...base, scope: "org", name: "x".repeat(100) })).toMatchObject({ ok: true });
    expect(planIssue({ ...base, scope: "org", expiresInDays: 1825 })).toMatchObject({
      ok: true,
      plan: { expiresInDays: 1825 },
    });
    expect(planIssue({ ...base, scope: "org", expiresInDays: 1826 })).toMatchObject({
      ok: false,
      violations: [{ path: "body.expires_in_days" }],
    });
    expect(planIssue({ ...base, scope: "org", expiresInDays: 0 })).toMatchObject({ ok: false });
    expect(planIssue({ ...base, scope: "org", permissionBreadth: "admin" })).toMatchObject({
      ok: false,
      violations: [{ path: "body.permission_breadth" }],
    });
  });
});

describe("who issues and manages keys", () => {
  const teamAdmin = person({ memberships: [{ team_id: TEAM, organization_id: null, role: "team_admin" }] });
  const developer = person({ memberships: [{ team_id: TEAM, organization_id: null, role: "developer" }] });
  const viewer = person({ memberships: [{ team_id: TEAM, organization_id: null, role: "viewer" }] });

  it("keeps org keys to super_admin, team keys to team_admin, project keys to developer", () => {
    expect(mayIssue(person({ is_superuser: true }), "org", null)).toBe(true);
    expect(mayIssue(teamAdmin, "org", null)).toBe(false);
    expect(mayIssue(teamAdmin, "team", TEAM)).toBe(true);
    expect(mayIssue(developer, "team", TEAM)).toBe(false);
    expect(mayIssue(developer, "project", TEAM)).toBe(true);
    expect(mayIssue(viewer, "project", TEAM)).toBe(false);
    expect(mayIssue(teamAdmin, "team", OTHER)).toBe(false);
  });

  it("never lets a key mint a key", () => {
    expect(mayIssue(person({ kind: "api_key", is_superuser: true }), "org", null)).toBe(false);
  });

  it("lets the issuer, a team_admin of the key's team and super_admin manage it", () => {
    expect(mayManageKey(person({ user_id: "me" }), { createdByUserId: "me", teamId: null })).toBe(true);
    expect(mayManageKey(teamAdmin, { createdByUserId: "someone", teamId: TEAM })).toBe(true);
    expect(mayManageKey(developer, { createdByUserId: "someone", teamId: TEAM })).toBe(false);
    expect(mayManageKey(teamAdmin, { createdByUserId: "someone", teamId: OTHER })).toBe(false);
    expect(mayManageKey(person({ is_superuser: true }), { createdByUserId: "someone", teamId: OTHER })).toBe(true);
  });

  it("narrows only to read_only", () => {
    expect(narrowedBreadth("read_only")).toBe("read_only");
    expect(narrowedBreadth("read_write")).toBeNull();
  });
});

describe("what a key reaches", () => {
  const memberships = [
    { team_id: TEAM, organization_id: "org1", role: "team_admin" as const },
    { team_id: SUB, organization_id: "org1", role: "team_admin" as const },
    { team_id: OTHER, organization_id: "org2", role: "developer" as const },
  ];
  const grant = (g: Partial<ApiKeyGrant>): ApiKeyGrant => ({
    scope: "team",
    organization_id: "org1",
    team_id: TEAM,
    project_id: null,
    permission_breadth: "read_only",
    ...g,
  });

  it("bounds the holder's memberships by the scope", () => {
    expect(membershipsWithinGrant(memberships, grant({ scope: "org" }), new Set()).map((m) => m.team_id)).toEqual([
      TEAM,
      SUB,
    ]);
    expect(membershipsWithinGrant(memberships, grant({}), new Set([TEAM, SUB])).map((m) => m.team_id)).toEqual([
      TEAM,
      SUB,
    ]);
    expect(
      membershipsWithinGrant(memberships, grant({ scope: "project", project_id: PROJECT }), new Set([TEAM])).map(
        (m) => m.team_id,
      ),
    ).toEqual([TEAM]);
  });
});
