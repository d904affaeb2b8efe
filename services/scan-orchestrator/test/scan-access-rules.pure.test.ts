import { describe, expect, it } from "@jest/globals";
import { ANONYMOUS, type ApiKeyGrant, type Caller, type Membership } from "@sca/rpc";
import { mayReadScan, scanVisibility } from "../src/domain/scan-access.ts";

const TEAM = "0190f0e0-0000-7000-8000-00000000000a";
const OTHER = "0190f0e0-0000-7000-8000-00000000000b";
const PROJECT = "0190f0e0-0000-7000-8000-0000000000a1";
const SIBLING = "0190f0e0-0000-7000-8000-0000000000a2";

const member = (team: string, role: Membership["role"] = "viewer"): Membership => ({
  team_id: team,
  organization_id: null,
  role,
});
const person = (o: Partial<Caller> = {}): Caller => ({
  ...ANONYMOUS,
  kind: "user",
  user_id: "u",
  email: "u@example.com",
  ...o,
});
const key = (grant: Partial<ApiKeyGrant>, memberships: Membership[]): Caller => ({
  ...ANONYMOUS,
  kind: "api_key",
  user_id: "u",
  api_key_id: "k",
  memberships,
  api_key: {
    scope: "team",
    organization_id: null,
    team_id: TEAM,
    project_id: null,
    permission_breadth: "read_only",
    ...grant,
  },
});

describe("who reads scans", () => {
  it("lets any member of the scan's team read it, and nobody outside", () => {
    expect(mayReadScan(person({ memberships: [member(TEAM)] }), { teamId: TEAM, projectId: PROJECT })).toBe(true);
    expect(
      mayReadScan(person({ memberships: [member(OTHER, "team_admin")] }), { teamId: TEAM, projectId: PROJECT }),
    ).toBe(false);
    expect(mayReadScan(person(), { teamId: TEAM, projectId: PROJECT })).toBe(false);
  });

  it("lets a super_admin read every scan, but never an API key on its issuer's flag", () => {
    expect(mayReadScan(person({ is_superuser: true }), { teamId: TEAM, projectId: PROJECT })).toBe(true);
    expect(mayReadScan({ ...key({}, []), is_superuser: true }, { teamId: TEAM, projectId: PROJECT })).toBe(false);
  });

  it("holds a project key to its project, and a team key to its team", () => {
    const projectKey = key({ scope: "project", project_id: PROJECT }, [member(TEAM, "developer")]);
    expect(mayReadScan(projectKey, { teamId: TEAM, projectId: PROJECT })).toBe(true);
    expect(mayReadScan(projectKey, { teamId: TEAM, projectId: SIBLING })).toBe(false);
    const teamKey = key({ scope: "team" }, [member(TEAM, "developer")]);
    expect(mayReadScan(teamKey, { teamId: TEAM, projectId: SIBLING })).toBe(true);
    expect(mayReadScan(teamKey, { teamId: OTHER, projectId: SIBLING })).toBe(false);
  });

  it("scopes the caller's own list the same way", () => {
    expect(scanVisibility(person({ is_superuser: true }))).toEqual({ all: true });
    expect(scanVisibility(person({ memberships: [member(TEAM), member(OTHER), member(TEAM, "developer")] }))).toEqual({
      all: false,
      teamIds: [TEAM, OTHER],
      projectId: null,
    });
    expect(scanVisibility(key({ scope: "project", project_id: PROJECT }, [member(TEAM)]))).toEqual({
      all: false,
      teamIds: [TEAM],
      projectId: PROJECT,
    });
    expect(scanVisibility(person())).toEqual({ all: false, teamIds: [], projectId: null });
  });
});
