import { describe, expect, it } from "@jest/globals";
import type { Caller } from "@sca/rpc";
import { approvalRequiredStatuses, confirmationRefusal, needsConfirmation } from "../src/domain/triage-confirmation.ts";

const person = (id: string): Caller => ({
  kind: "user",
  user_id: id,
  email: `${id}@example.com`,
  is_superuser: false,
  memberships: [],
  api_key_id: null,
  api_key: null,
  ip: null,
  user_agent: null,
});

describe("statuses a second person confirms", () => {
  it("the team's setting wins, else the organization's, else none; an empty list set by the team means none", () => {
    expect(approvalRequiredStatuses(["resolved"], ["not_affected"])).toEqual(["resolved"]);
    expect(approvalRequiredStatuses(null, ["not_affected"])).toEqual(["not_affected"]);
    expect(approvalRequiredStatuses(undefined, ["not_affected"])).toEqual(["not_affected"]);
    expect(approvalRequiredStatuses([], ["not_affected"])).toEqual([]);
    expect(approvalRequiredStatuses(undefined, undefined)).toEqual([]);
  });

  it("only a move into a named status waits; staying in it does not", () => {
    expect(needsConfirmation("in_triage", "not_affected", ["not_affected"])).toBe(true);
    expect(needsConfirmation("not_affected", "not_affected", ["not_affected"])).toBe(false);
    expect(needsConfirmation("in_triage", "resolved", ["not_affected"])).toBe(false);
  });

  it("a different person confirms; the requester and API keys do not", () => {
    expect(confirmationRefusal(person("a"), "b")).toBeNull();
    expect(confirmationRefusal(person("a"), "a")).toBe("same_person");
    expect(confirmationRefusal({ ...person("a"), kind: "api_key", user_id: null, api_key_id: "k" }, "b")).toBe(
      "not_a_person",
    );
  });
});
