import { describe, expect, it } from "@jest/globals";
import { NUMBERED_PAGE_SIZE, readPage as readPageRequest } from "@sca/paging";
import type { Caller } from "@sca/rpc";
import { moveCreatesCycle } from "../src/domain/group-hierarchy.ts";
import { isAdministrator, isDemotion, mayActOnTeam, parseRoleChange } from "../src/domain/roles.ts";

const TEAM = "0190f0e0-0000-7000-8000-00000000000a";
const OTHER = "0190f0e0-0000-7000-8000-00000000000b";

function person(overrides: Partial<Caller> = {}): Caller {
  return {
    kind: "user",
    user_id: "u",
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

describe("role change body", () => {
  it("takes super_admin without a team and ignores one given", () => {
    expect(parseRoleChange("super_admin", undefined)).toEqual({ ok: true, change: { kind: "super_admin" } });
    expect(parseRoleChange("super_admin", TEAM)).toEqual({ ok: true, change: { kind: "super_admin" } });
  });

  it("requires team_id for group_admin and developer", () => {
    for (const role of ["group_admin", "developer"]) {
      expect(parseRoleChange(role, undefined)).toMatchObject({ ok: false, path: "body.team_id" });
      expect(parseRoleChange(role, TEAM)).toEqual({ ok: true, change: { kind: "team_role", role, teamId: TEAM } });
    }
  });

  it("refuses roles the body does not accept", () => {
    for (const role of ["team_admin", "viewer", "root", ""])
      expect(parseRoleChange(role, TEAM)).toMatchObject({ ok: false, path: "body.role" });
  });

  it("counts naming a team role for a super_admin as a demotion, and nothing else", () => {
    const teamRole = { kind: "team_role", role: "developer", teamId: TEAM } as const;
    expect(isDemotion(true, teamRole)).toBe(true);
    expect(isDemotion(true, { kind: "super_admin" })).toBe(false);
    expect(isDemotion(false, teamRole)).toBe(false);
  });
});

describe("who acts where", () => {
  it("lets super_admin act on any team and others by their effective role", () => {
    expect(mayActOnTeam(person({ is_superuser: true }), TEAM, "team_admin")).toBe(true);
    const dev = person({ memberships: [{ team_id: TEAM, organization_id: null, role: "developer" }] });
    expect(mayActOnTeam(dev, TEAM, "developer")).toBe(true);
    expect(mayActOnTeam(dev, TEAM, "team_admin")).toBe(false);
    expect(mayActOnTeam(dev, OTHER, "viewer")).toBe(false);
    const groupAdmin = person({ memberships: [{ team_id: TEAM, organization_id: null, role: "group_admin" }] });
    expect(mayActOnTeam(groupAdmin, TEAM, "team_admin")).toBe(true);
  });

  it("keeps the admin surface to people holding super_admin", () => {
    expect(isAdministrator(person({ is_superuser: true }))).toBe(true);
    expect(isAdministrator(person())).toBe(false);
    expect(isAdministrator(person({ kind: "api_key", is_superuser: true }))).toBe(false);
  });
});

describe("group moves", () => {
  it("refuses moving a group under itself or anything below it", () => {
    expect(moveCreatesCycle("a", "a", [])).toBe(true);
    // new parent c sits under b under a: moving a under c closes a loop
    expect(moveCreatesCycle("a", "c", ["b", "a"])).toBe(true);
  });

  it("allows the root and unrelated parents", () => {
    expect(moveCreatesCycle("a", null, [])).toBe(false);
    expect(moveCreatesCycle("a", "x", ["y", "z"])).toBe(false);
  });
});

describe("numbered pages", () => {
  // The directory's Lists read their PageRequest with @sca/paging and the spec's numbered page size.
  const readPage = (page: number, pageSize: number) => readPageRequest({ page, pageSize }, NUMBERED_PAGE_SIZE);

  it("defaults and bounds", () => {
    expect(readPage(0, 0)).toEqual({ ok: true, value: { page: 1, pageSize: 50, limit: 50, offset: 0 } });
    expect(readPage(3, 200)).toEqual({ ok: true, value: { page: 3, pageSize: 200, limit: 200, offset: 400 } });
    expect(readPage(1, 201)).toMatchObject({ ok: false, violations: [{ path: "query.page_size" }] });
    expect(readPage(-1, 10)).toMatchObject({ ok: false, violations: [{ path: "query.page" }] });
    expect(readPage(1_000_001, 10)).toMatchObject({ ok: false });
  });
});
