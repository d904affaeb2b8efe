// The pure rules of domain/: field shapes, the PATCH plan, who may do what, the batch tally.
import { describe, expect, it } from "@jest/globals";
import { summarizeBatch } from "@sca/batch";
import { ANONYMOUS, type Caller, type Membership } from "@sca/rpc";
import {
  listScope,
  mayArchive,
  mayCreate,
  mayRead,
  mayUpdate,
  signingAccess,
  type ProjectScope,
} from "../src/domain/project-access.ts";
import { gitUrlViolation, isLicenseExpression, planNewProject, planPatch } from "../src/domain/project-fields.ts";

const TEAM = "00000000-0000-4000-8000-000000000001";
const ORG = "00000000-0000-4000-8000-0000000000aa";
const project: ProjectScope = {
  id: "00000000-0000-4000-8000-000000000010",
  teamId: TEAM,
  organizationId: ORG,
  visibility: "team",
};

const user = (memberships: Membership[], superuser = false): Caller => ({
  ...ANONYMOUS,
  kind: "user",
  user_id: "u",
  is_superuser: superuser,
  memberships,
});
const on = (role: Membership["role"], team = TEAM, org: string | null = ORG): Membership => ({
  team_id: team,
  organization_id: org,
  role,
});

describe("license expressions", () => {
  it.each([
    "MIT",
    "Apache-2.0 OR MIT",
    "(MIT AND BSD-3-Clause) OR GPL-2.0-only WITH Classpath-exception-2.0",
    "LicenseRef-acme-1",
    "DocumentRef-x:LicenseRef-y",
  ])("accepts %s", (e) => {
    expect(isLicenseExpression(e)).toBe(true);
  });
  it.each(["", "MIT AND", "AND MIT", "(MIT", "MIT)", "MIT OR OR BSD", "(MIT OR BSD) WITH X", "MIT WITH", "M I T"])(
    "refuses %j",
    (e) => {
      expect(isLicenseExpression(e)).toBe(false);
    },
  );
});

describe("git urls", () => {
  it("takes http(s), ssh, git and scp-like addresses, never one with a password", () => {
    for (const ok of [
      "https://git.example.com/a/b.git",
      "ssh://git@example.com/a.git",
      "git://example.com/a",
      "git@github.com:a/b.git",
    ])
      expect(gitUrlViolation(ok)).toBeNull();
    for (const bad of ["ftp://x/y", "not a url", "https://u:p@example.com/a.git", `https://e.com/${"a".repeat(2048)}`])
      expect(gitUrlViolation(bad)).not.toBeNull();
  });
});

describe("a create body", () => {
  it("defaults visibility to team and treats empty optional fields as unset", () => {
    const planned = planNewProject({ name: " Api ", slug: "api", teamId: TEAM, businessUnit: "" });
    expect(planned).toEqual({
      ok: true,
      plan: expect.objectContaining({ name: "Api", visibility: "team", businessUnit: null }),
    });
  });
  it("names each bad field under its prefix", () => {
    const planned = planNewProject({ name: "", slug: "-x", teamId: "t" }, "body.projects[2]");
    expect(planned.ok ? [] : planned.violations.map((v) => v.path)).toEqual([
      "body.projects[2].name",
      "body.projects[2].slug",
      "body.projects[2].team_id",
    ]);
  });
});

describe("a PATCH body", () => {
  it("keeps only what is present; an empty string clears", () => {
    expect(planPatch({ clearGitCredential: false })).toEqual({ ok: true, changes: {} });
    expect(planPatch({ businessUnit: "", ownerContact: "o", clearGitCredential: false })).toEqual({
      ok: true,
      changes: { businessUnit: null, ownerContact: "o" },
    });
  });
  it("sets, keeps or clears the credential, never clear with a new one", () => {
    expect(planPatch({ gitCredential: "s", clearGitCredential: false })).toEqual({
      ok: true,
      changes: { gitCredential: { kind: "set", value: "s" } },
    });
    expect(planPatch({ gitCredential: "", clearGitCredential: false })).toEqual({ ok: true, changes: {} });
    expect(planPatch({ gitCredential: "", clearGitCredential: true })).toEqual({
      ok: true,
      changes: { gitCredential: { kind: "clear" } },
    });
    expect(planPatch({ gitCredential: "s", clearGitCredential: true }).ok).toBe(false);
  });
  it("cannot clear name or visibility", () => {
    expect(planPatch({ name: " ", clearGitCredential: false }).ok).toBe(false);
    expect(planPatch({ visibility: "", clearGitCredential: false }).ok).toBe(false);
  });
});

describe("who may do what", () => {
  it("reads: any role on the team, super_admin; organization visibility opens it to the organization", () => {
    expect(mayRead(user([on("viewer")]), project)).toBe(true);
    expect(mayRead(user([], true), project)).toBe(true);
    const sameOrg = user([on("viewer", "00000000-0000-4000-8000-000000000002")]);
    expect(mayRead(sameOrg, project)).toBe(false);
    expect(mayRead(sameOrg, { ...project, visibility: "organization" })).toBe(true);
  });
  it("create and archive need developer, update team_admin", () => {
    for (const [role, create, update] of [
      ["viewer", false, false],
      ["developer", true, false],
      ["team_admin", true, true],
      ["group_admin", true, true],
    ] as const) {
      const c = user([on(role)]);
      expect(mayCreate(c, TEAM)).toBe(create);
      expect(mayArchive(c, project).ok).toBe(create);
      expect(mayUpdate(c, project).ok).toBe(update);
    }
  });
  it("signing downloads: developer and above on the team, super_admin; a viewer refused, others hidden", () => {
    const orgVisible = { ...project, visibility: "organization" as const };
    expect(signingAccess(user([on("developer")]), orgVisible)).toBe("allow");
    expect(signingAccess(user([on("team_admin")]), orgVisible)).toBe("allow");
    expect(signingAccess(user([], true), orgVisible)).toBe("allow");
    expect(signingAccess(user([on("viewer")]), orgVisible)).toBe("forbid");
    // An organization reader who is not on the team is an outsider here.
    expect(signingAccess(user([on("team_admin", "00000000-0000-4000-8000-000000000002")]), orgVisible)).toBe("hide");
    expect(signingAccess(user([]), orgVisible)).toBe("hide");
  });
  it("a project key reaches its project only, and never creates", () => {
    const key: Caller = {
      ...ANONYMOUS,
      kind: "api_key",
      memberships: [on("team_admin")],
      api_key: {
        scope: "project",
        organization_id: null,
        team_id: TEAM,
        project_id: project.id,
        permission_breadth: "read_write",
      },
    };
    expect(mayRead(key, project)).toBe(true);
    expect(mayRead(key, { ...project, id: "00000000-0000-4000-8000-000000000099" })).toBe(false);
    expect(mayCreate(key, TEAM)).toBe(false);
    expect(listScope(key)).toEqual({ kind: "some", teamIds: [TEAM], organizationIds: [], onlyProjectId: project.id });
  });
});

describe("batch tally", () => {
  it("counts successes and failures by status", () => {
    const t = summarizeBatch([
      { index: 0, status: "created" },
      { index: 1, status: "already_exists" },
      { index: 2, status: "invalid" },
      { index: 3, status: "invalid" },
      { index: 4, status: "forbidden" },
    ]);
    expect(t).toMatchObject({
      allSucceeded: false,
      total: 5,
      created: 1,
      alreadyExisted: 1,
      failed: 3,
      failedByStatus: { invalid: 2, forbidden: 1 },
    });
  });
});
