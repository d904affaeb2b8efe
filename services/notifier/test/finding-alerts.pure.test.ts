// The pure rules of findings.new, vulnerability.kev_listed, gate.failed and the team chat webhooks' URLs.
import { describe, expect, it } from "@jest/globals";
import { findingsNewNotification, kevListedNotification } from "../src/domain/finding-alerts.ts";
import { gateFailedNotification, gatePassedNotification } from "../src/domain/gate-failures.ts";
import { kindSpec } from "../src/domain/kinds.ts";
import { teamOfRecipient, teamRecipient, webhookState, webhookUrlViolation } from "../src/domain/team-chat-webhooks.ts";

const finding = (i: number) => ({
  vulnerabilityId: `CVE-2099-${i}`,
  severity: "high",
  componentName: `pkg${i}`,
  componentVersion: "1.0.0",
});

describe("findings.new", () => {
  it("is raised only when findings were added, names five and counts the rest", () => {
    expect(findingsNewNotification({ projectId: "p", addedCount: 0, added: [] })).toBeNull();
    const n = findingsNewNotification({ projectId: "p", addedCount: 7, added: [1, 2, 3, 4, 5, 6, 7].map(finding) })!;
    expect(n).toMatchObject({
      kind: "findings.new",
      severity: null,
      title: "7 new vulnerability findings after an advisory update",
      link: "/projects/p/vulnerabilities",
    });
    expect(n.body).toContain("CVE-2099-5 (high) in pkg5 1.0.0, and 2 more.");
    expect(n.body).not.toContain("CVE-2099-6");
    expect(findingsNewNotification({ projectId: "p", addedCount: 1, added: [finding(1)] })!.title).toBe(
      "1 new vulnerability finding after an advisory update",
    );
  });
});

describe("vulnerability.kev_listed", () => {
  it("is critical, names the earliest due date, and nothing without a listed finding", () => {
    expect(kevListedNotification({ projectId: "p", listedCount: 0, findings: [] })).toBeNull();
    const n = kevListedNotification({
      projectId: "p",
      listedCount: 2,
      findings: [
        { ...finding(1), kevDueDate: "2026-12-20" },
        { ...finding(2), kevDueDate: "2026-12-01" },
      ],
    })!;
    expect(n).toMatchObject({ kind: "vulnerability.kev_listed", severity: "critical" });
    expect(n.title).toBe("2 open findings are now known to be exploited");
    expect(n.body).toContain("earliest remediation due date is 2026-12-01");
    expect(kindSpec("vulnerability.kev_listed")).toMatchObject({ severity: "critical" });
  });
});

describe("gate.failed", () => {
  it("names the failing checks and carries their messages", () => {
    expect(gateFailedNotification({ projectId: "p", scanId: "s", reasons: [] })).toBeNull();
    const n = gateFailedNotification({
      projectId: "p",
      scanId: "s",
      reasons: [
        { code: "critical_vulnerabilities", message: "1 open critical.", count: 1 },
        { code: "forbidden_licenses", message: "1 forbidden license.", count: 1 },
      ],
    })!;
    expect(n).toMatchObject({
      kind: "gate.failed",
      severity: "high",
      title: "The build gate fails for the latest scan: critical vulnerabilities, forbidden licenses",
      body: "1 open critical. 1 forbidden license.",
      link: "/projects/p/scans/s",
    });
    const reasons = [{ code: "critical_vulnerabilities", message: "1 open critical.", count: 1 }];
    expect(gateFailedNotification({ projectId: "p", scanId: "s", cause: "scan", reasons })!.title).toBe(
      "The build gate fails for the latest scan: critical vulnerabilities",
    );
    expect(gateFailedNotification({ projectId: "p", scanId: "s", cause: "advisory_update", reasons })!.title).toBe(
      "The build gate now fails after an advisory update: critical vulnerabilities",
    );
    expect(gateFailedNotification({ projectId: "p", scanId: "s", cause: "malicious_snapshot", reasons })!.title).toBe(
      "The build gate now fails after a malicious-package snapshot update: critical vulnerabilities",
    );
  });
});

describe("team chat webhook URLs", () => {
  it("are absolute http(s) URLs without credentials on an allowed host, shown only by host", () => {
    const allowed = ["hooks.slack.com", "*.logic.azure.com", "127.0.0.1"];
    expect(webhookUrlViolation("slack_url", "https://hooks.slack.com/services/T/B/x", allowed)).toBeNull();
    expect(webhookUrlViolation("teams_url", "https://prod-1.westus.logic.azure.com/workflows/x", allowed)).toBeNull();
    expect(webhookUrlViolation("slack_url", "http://127.0.0.1:9000/x", allowed)).toBeNull();
    for (const bad of [
      "",
      "hooks.slack.com/x",
      "ftp://hooks.slack.com/x",
      "https://u:p@hooks.slack.com/x",
      `https://hooks.slack.com/${"x".repeat(2048)}`,
      "https://hooks.slack.com.evil.example/x",
      "https://logic.azure.com.example/x",
      "http://10.0.0.1/x",
    ])
      expect(webhookUrlViolation("slack_url", bad, allowed)).toMatchObject({ path: "slack_url" });
    expect(webhookState("https://hooks.slack.com:8443/services/secret")).toEqual({
      configured: true,
      host: "hooks.slack.com:8443",
    });
    expect(webhookState(null)).toEqual({ configured: false, host: "" });
    expect(teamOfRecipient(teamRecipient("t1"))).toBe("t1");
    expect(teamOfRecipient("org")).toBeNull();
  });
});

describe("gate.passed", () => {
  it("tells that late registry licenses made the gate pass, in-app only by default", () => {
    expect(gatePassedNotification({ projectId: "p", scanId: "s" })).toMatchObject({
      kind: "gate.passed",
      severity: null,
      title: "The build gate now passes after licenses arrived from the package registries",
      link: "/projects/p/scans/s",
    });
    expect(kindSpec("gate.passed")).toMatchObject({ severity: null, defaults: { in_app: true, email: false } });
  });
});
