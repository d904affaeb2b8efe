import { describe, expect, it } from "@jest/globals";
import { GateSubjectHints, sameSubject } from "../src/clients/gate-subject-hints.ts";

const subject = (n: number, teamId = `team-${n}`) => ({ projectId: `project-${n}`, teamId, organizationId: null });

describe("GateSubjectHints", () => {
  it("answers the subject last remembered for a project, and null for one never seen", () => {
    const hints = new GateSubjectHints(10);
    hints.remember(subject(1));
    hints.remember(subject(1, "moved"));
    expect(hints.get("project-1")).toEqual(subject(1, "moved"));
    expect(hints.get("project-2")).toBeNull();
  });

  it("holds at most its capacity, dropping the project remembered longest ago", () => {
    const hints = new GateSubjectHints(3);
    for (const n of [1, 2, 3]) hints.remember(subject(n));
    hints.remember(subject(1)); // remembered again: now the newest
    hints.remember(subject(4));
    expect(hints.get("project-2")).toBeNull();
    expect([1, 3, 4].map((n) => hints.get(`project-${n}`))).toEqual([subject(1), subject(3), subject(4)]);
  });

  it("tells a subject that moved team or organization from the same one", () => {
    expect(sameSubject(subject(1), subject(1))).toBe(true);
    expect(sameSubject(subject(1), subject(1, "other"))).toBe(false);
    expect(sameSubject(subject(1), { ...subject(1), organizationId: "org" })).toBe(false);
  });
});
