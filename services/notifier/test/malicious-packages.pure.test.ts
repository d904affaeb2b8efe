// package.malicious's content from MaliciousComponentsFlagged: always critical, the first components named with
// their MAL- record, the rest counted; nothing for an empty event.
import { describe, expect, it } from "@jest/globals";
import { MALICIOUS_PACKAGE_ROLES, maliciousPackageNotification } from "../src/domain/malicious-packages.ts";

const component = (i: number) => ({ name: `evil-${i}`, version: `1.0.${i}`, maliciousId: `MAL-2099-${i}` });

describe("package.malicious", () => {
  it("names one flagged component with its record", () => {
    expect(maliciousPackageNotification({ projectId: "p1", flaggedCount: 1, components: [component(1)] })).toEqual({
      kind: "package.malicious",
      severity: "critical",
      title: "1 known-malicious package is in the project",
      body: "Flagged by the malicious-package snapshot: evil-1 1.0.1 (MAL-2099-1).",
      link: "/projects/p1/components?malicious=flagged",
    });
  });

  it("names five and counts the rest (the count is whole, the list capped)", () => {
    const n = maliciousPackageNotification({
      projectId: "p1",
      flaggedCount: 700,
      components: Array.from({ length: 500 }, (_, i) => component(i)),
    });
    expect(n?.title).toBe("700 known-malicious packages are in the project");
    expect(n?.body).toMatch(/evil-4 1\.0\.4 \(MAL-2099-4\), and 695 more\.$/);
  });

  it("raises nothing for an empty event, and reaches the roles that act", () => {
    expect(maliciousPackageNotification({ projectId: "p1", flaggedCount: 0, components: [] })).toBeNull();
    expect(MALICIOUS_PACKAGE_ROLES).toEqual(["group_admin", "team_admin", "developer"]);
  });
});
