// The notifier's domain rules: kinds, preferences, scan outcomes, e-mails and the delivery back-off.
import { describe, expect, it } from "@jest/globals";
import { MAX_DELIVERY_ATTEMPTS, nextAttemptAt } from "../src/domain/delivery-backoff.ts";
import { notificationEmail, passwordResetEmail, portalUrl } from "../src/domain/email-messages.ts";
import { KINDS, kindSpec, severityAtLeast, TUNABLE_KINDS } from "../src/domain/kinds.ts";
import { applyChanges, changeProblems, effectivePreferences, wants } from "../src/domain/preferences.ts";
import { SCAN_OUTCOME_ROLES, scanOutcomeNotification, type ScanOutcome } from "../src/domain/scan-outcomes.ts";

const scan = (over: Partial<ScanOutcome> = {}): ScanOutcome => ({
  scanId: "s1",
  projectId: "p1",
  teamId: "t1",
  kind: "source",
  status: "failed",
  previousStatus: "running",
  ref: "main",
  release: null,
  requestedByUserId: null,
  errorMessage: "cdxgen exited with 1",
  attempt: 3,
  ...over,
});

describe("kinds", () => {
  it("are unique, and only scan outcomes, SLA breaches, approvals, malicious packages, the reset e-mail and the queue backlog are raised", () => {
    expect(new Set(KINDS.map((k) => k.kind)).size).toBe(KINDS.length);
    expect(KINDS.map((k) => k.kind)).toEqual([
      "scan.failed",
      "scan.succeeded",
      "findings.new",
      "vulnerability.kev_listed",
      "vulnerability.sla_breached",
      "gate.failed",
      "gate.passed",
      "approval.requested",
      "approval.decided",
      "package.malicious",
      "queue.backlog",
      "account.password_reset",
    ]);
    expect(TUNABLE_KINDS.some((k) => k.kind === "account.password_reset")).toBe(false);
  });

  it("orders severities; no severity never reaches a minimum", () => {
    expect(severityAtLeast("high", "medium")).toBe(true);
    expect(severityAtLeast("low", "medium")).toBe(false);
    expect(severityAtLeast("critical", "critical")).toBe(true);
    expect(severityAtLeast(null, "info")).toBe(false);
  });
});

describe("preferences", () => {
  it("fill every tunable kind with its defaults, then the person's choices", () => {
    const prefs = effectivePreferences([{ kind: "scan.failed", channel: "email", enabled: false }]);
    expect(prefs).toHaveLength(TUNABLE_KINDS.length);
    expect(prefs.find((p) => p.kind === "scan.failed")).toEqual({ kind: "scan.failed", in_app: true, email: false });
    expect(prefs.find((p) => p.kind === "scan.succeeded")).toEqual({
      kind: "scan.succeeded",
      in_app: true,
      email: false,
    });
  });

  it("merge a change, or replace with it", () => {
    const current = [
      { kind: "scan.failed", channel: "email" as const, enabled: false },
      { kind: "gate.failed", channel: "in_app" as const, enabled: false },
    ];
    const merged = applyChanges(current, [{ kind: "scan.failed", in_app: false }], false);
    expect(merged).toEqual(
      expect.arrayContaining([
        { kind: "scan.failed", channel: "email", enabled: false },
        { kind: "scan.failed", channel: "in_app", enabled: false },
        { kind: "gate.failed", channel: "in_app", enabled: false },
      ]),
    );
    expect(merged).toHaveLength(3);
    expect(applyChanges(current, [{ kind: "scan.succeeded", email: true }], true)).toEqual([
      { kind: "scan.succeeded", channel: "email", enabled: true },
    ]);
  });

  it("refuse unknown, untunable and repeated kinds", () => {
    expect(changeProblems([{ kind: "scan.failed", email: true }])).toEqual([]);
    expect(changeProblems([{ kind: "nope" }]).map((p) => p.path)).toEqual(["kinds.0.kind"]);
    expect(changeProblems([{ kind: "account.password_reset", email: false }])).toHaveLength(1);
    expect(changeProblems([{ kind: "scan.failed" }, { kind: "scan.failed" }]).map((p) => p.path)).toEqual([
      "kinds.1.kind",
    ]);
  });

  it("decide a channel: the choice, else the default; the reset e-mail whatever was chosen", () => {
    expect(wants([], "scan.failed", "email")).toBe(true);
    expect(wants([{ kind: "scan.failed", channel: "email", enabled: false }], "scan.failed", "email")).toBe(false);
    expect(wants([], "scan.succeeded", "email")).toBe(false);
    expect(
      wants([{ kind: "account.password_reset", channel: "email", enabled: false }], "account.password_reset", "email"),
    ).toBe(true);
    expect(wants([], "account.password_reset", "in_app")).toBe(false);
    expect(wants([], "no.such.kind", "in_app")).toBe(false);
  });
});

describe("scan outcomes", () => {
  it("a move into failed raises scan.failed with its reason and a link", () => {
    expect(scanOutcomeNotification(scan({ release: "1.2.0" }))).toEqual({
      kind: "scan.failed",
      severity: "medium",
      title: "Scan failed: source scan of main (release 1.2.0)",
      body: "The source scan of main (release 1.2.0) failed after 3 attempts: cdxgen exited with 1",
      link: "/projects/p1/scans/s1",
    });
    expect(scanOutcomeNotification(scan({ errorMessage: null, attempt: 1 }))?.body).toMatch(
      /after 1 attempt: No reason was given\.$/,
    );
  });

  it("a move into succeeded raises scan.succeeded without severity; other moves and repeats raise nothing", () => {
    expect(scanOutcomeNotification(scan({ status: "succeeded", ref: "" }))).toMatchObject({
      kind: "scan.succeeded",
      severity: null,
      title: "Scan succeeded: source scan",
    });
    expect(scanOutcomeNotification(scan({ status: "running", previousStatus: "queued" }))).toBeNull();
    expect(scanOutcomeNotification(scan({ status: "cancelled" }))).toBeNull();
    expect(scanOutcomeNotification(scan({ status: "failed", previousStatus: "failed" }))).toBeNull();
    expect(scanOutcomeNotification(scan({ previousStatus: "" }))?.kind).toBe("scan.failed");
  });

  it("go to the team's working roles by default, never to viewers", () => {
    for (const roles of Object.values(SCAN_OUTCOME_ROLES)) expect(roles).not.toContain("viewer");
    expect(SCAN_OUTCOME_ROLES["scan.failed"]).toEqual(["group_admin", "team_admin", "developer"]);
  });
});

describe("e-mails", () => {
  it("the reset e-mail carries the link in its body, escaped in HTML, never in its subject", () => {
    const url = "https://portal.example.com/reset-password?token=abc&x=<y>";
    const mail = passwordResetEmail({ fullName: "Ada", resetUrl: url, expiresAt: null, requestedBy: "self_service" });
    expect(mail.subject).toBe("Reset your password");
    expect(mail.text).toContain(url);
    expect(mail.text).toContain("Hello Ada,");
    expect(mail.html).toContain("https://portal.example.com/reset-password?token=abc&amp;x=&lt;y&gt;");
    expect(passwordResetEmail({ fullName: null, resetUrl: url, expiresAt: null, requestedBy: "admin" }).text).toMatch(
      /An administrator/,
    );
  });

  it("a notification e-mail links into the portal at the frontend's origin", () => {
    expect(portalUrl("https://portal.example.com/reset-password", "/projects/p/scans/s")).toBe(
      "https://portal.example.com/projects/p/scans/s",
    );
    expect(portalUrl("not a url", "/x")).toBeNull();
    const mail = notificationEmail({ title: "Scan failed: <b>", body: "Body & more", url: null });
    expect(mail.subject).toBe("Scan failed: <b>");
    expect(mail.html).toBe("<p>Body &amp; more</p>");
  });
});

describe("delivery back-off", () => {
  const now = new Date("2026-11-24T10:00:00Z");
  it("doubles from the base up to an hour, and gives up after the last attempt or at expiry", () => {
    expect(nextAttemptAt(1, now, 30_000, null)?.getTime()).toBe(now.getTime() + 30_000);
    expect(nextAttemptAt(3, now, 30_000, null)?.getTime()).toBe(now.getTime() + 120_000);
    expect(nextAttemptAt(9, now, 30_000, null)?.getTime()).toBe(now.getTime() + 3_600_000);
    expect(nextAttemptAt(MAX_DELIVERY_ATTEMPTS, now, 30_000, null)).toBeNull();
    expect(nextAttemptAt(1, now, 30_000, new Date(now.getTime() + 10_000))).toBeNull();
    expect(kindSpec("scan.failed")?.defaults.email).toBe(true);
  });
});
