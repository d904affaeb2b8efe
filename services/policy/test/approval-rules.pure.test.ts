// The approval and verdict rules of docs/approvals.md: the state machines (every state against every action), the
// justification bounds, and who may read, decide and delete.
import { describe, expect, it } from "@jest/globals";
import type { Caller, Role } from "@sca/rpc";
import {
  mayDecideApproval,
  mayDeleteApproval,
  mayReadTeamApprovals,
  approvalListScope,
  verdictReach,
} from "../src/domain/approval-access.ts";
import { APPROVAL_ACTIONS, APPROVAL_STATUSES, ApprovalStateMachine } from "../src/domain/approval-state-machine.ts";
import { justificationProblem, moveVerdict, VERDICT_INITIAL } from "../src/domain/verdict-state-machine.ts";

const TEAM = "11111111-1111-4111-8111-111111111111";
const OTHER_TEAM = "22222222-2222-4222-8222-222222222222";
const ORG = "33333333-3333-4333-8333-333333333333";

function person(id: string, memberships: [string, Role][], superAdmin = false): Caller {
  return {
    kind: "user",
    user_id: id,
    email: null,
    is_superuser: superAdmin,
    memberships: memberships.map(([team_id, role]) => ({ team_id, role, organization_id: ORG })),
    api_key_id: null,
    api_key: null,
    ip: null,
    user_agent: null,
  };
}

describe("ApprovalStateMachine", () => {
  it("moves exactly as the documented table says", () => {
    const table = Object.fromEntries(
      APPROVAL_STATUSES.map((from) => [from, APPROVAL_ACTIONS.filter((a) => ApprovalStateMachine.move(from, a).ok)]),
    );
    expect(table).toEqual({
      pending: ["under_review", "approved", "rejected"],
      under_review: ["approved", "rejected"],
      approved: [],
      rejected: [],
    });
    expect(ApprovalStateMachine.initial).toBe("pending");
  });

  it("records a decision only for approved and rejected, and names what is allowed when refusing", () => {
    expect(ApprovalStateMachine.move("pending", "under_review")).toEqual({
      ok: true,
      to: "under_review",
      decides: false,
    });
    expect(ApprovalStateMachine.move("under_review", "rejected")).toEqual({ ok: true, to: "rejected", decides: true });
    expect(ApprovalStateMachine.move("under_review", "under_review")).toEqual({
      ok: false,
      allowed: ["approved", "rejected"],
    });
    expect(ApprovalStateMachine.move("approved", "rejected")).toEqual({ ok: false, allowed: [] });
  });

  it("calls approved and rejected terminal, the others not", () => {
    expect(APPROVAL_STATUSES.filter((s) => ApprovalStateMachine.isTerminal(s))).toEqual(["approved", "rejected"]);
  });
});

describe("organization verdict moves", () => {
  it("start under review and move to any other status, never to the same", () => {
    expect(VERDICT_INITIAL).toBe("under_review");
    expect(moveVerdict("under_review", "approved")).toEqual({ ok: true, to: "approved", decides: true });
    expect(moveVerdict("approved", "under_review")).toEqual({ ok: true, to: "under_review", decides: false });
    expect(moveVerdict("rejected", "approved")).toEqual({ ok: true, to: "approved", decides: true });
    expect(moveVerdict("approved", "approved")).toEqual({ ok: false, allowed: ["under_review", "rejected"] });
  });

  it("want a justification of 10 to 4000 characters once trimmed", () => {
    expect(justificationProblem("  ten chars! ")).toBeNull();
    expect(justificationProblem("   short   ")).toMatch(/at least 10/);
    expect(justificationProblem("x".repeat(4001))).toMatch(/at most 4000/);
  });
});

describe("who may", () => {
  const approval = { teamId: TEAM, requestedByUserId: "requester" };

  it("read a team's approvals: members and super_admin; others not found", () => {
    expect(mayReadTeamApprovals(person("v", [[TEAM, "viewer"]]), TEAM)).toBe("allow");
    expect(mayReadTeamApprovals(person("r", [], true), TEAM)).toBe("allow");
    expect(mayReadTeamApprovals(person("o", [[OTHER_TEAM, "team_admin"]]), TEAM)).toBe("not_found");
  });

  it("decide: team_admin and above, never the requester themself", () => {
    expect(mayDecideApproval(person("a", [[TEAM, "team_admin"]]), approval)).toBe("allow");
    expect(mayDecideApproval(person("g", [[TEAM, "group_admin"]]), approval)).toBe("allow");
    expect(mayDecideApproval(person("d", [[TEAM, "developer"]]), approval)).toBe("forbidden");
    expect(mayDecideApproval(person("requester", [[TEAM, "team_admin"]]), approval)).toBe("forbidden");
    expect(mayDecideApproval(person("requester", [], true), approval)).toBe("forbidden");
    expect(mayDecideApproval(person("r", [], true), approval)).toBe("allow");
    expect(mayDecideApproval(person("o", [[OTHER_TEAM, "team_admin"]]), approval)).toBe("not_found");
  });

  it("delete: the requester, a team_admin, a super_admin", () => {
    expect(mayDeleteApproval(person("requester", [[TEAM, "viewer"]]), approval)).toBe("allow");
    expect(mayDeleteApproval(person("a", [[TEAM, "team_admin"]]), approval)).toBe("allow");
    expect(mayDeleteApproval(person("r", [], true), approval)).toBe("allow");
    expect(mayDeleteApproval(person("d", [[TEAM, "developer"]]), approval)).toBe("forbidden");
    expect(mayDeleteApproval(person("o", [[OTHER_TEAM, "team_admin"]]), approval)).toBe("not_found");
  });

  it("list: a super_admin all, others their teams", () => {
    expect(approvalListScope(person("r", [], true))).toEqual({ kind: "all" });
    expect(
      approvalListScope(
        person("d", [
          [TEAM, "developer"],
          [OTHER_TEAM, "viewer"],
        ]),
      ),
    ).toEqual({
      kind: "teams",
      teamIds: [TEAM, OTHER_TEAM],
    });
  });

  it("see verdicts: writers (super_admin, group_admin in the organization) all, members the published part", () => {
    expect(verdictReach(person("r", [], true), ORG)).toBe("writer");
    expect(verdictReach(person("g", [[TEAM, "group_admin"]]), ORG)).toBe("writer");
    expect(verdictReach(person("a", [[TEAM, "team_admin"]]), ORG)).toBe("reader");
    expect(verdictReach(person("a", [[TEAM, "team_admin"]]), "44444444-4444-4444-8444-444444444444")).toBe("none");
  });
});
