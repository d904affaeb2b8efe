// Routing rules, the webhook bodies and who manages rules: the notifier's pure rules for the routed channels.
import { describe, expect, it } from "@jest/globals";
import { ANONYMOUS, type Caller, type Membership } from "@sca/rpc";
import { chatByDefault } from "../src/domain/kinds.ts";
import { backlogChanges, backlogNotification } from "../src/domain/queue-backlog.ts";
import { wants } from "../src/domain/preferences.ts";
import {
  mayManageOrganizationRules,
  mayManageTeamRules,
  mayReadOrganizationRules,
  mayReadTeamRules,
  parseRule,
  routingOf,
  ruleMatches,
  type RuleInput,
  type RuleMatch,
} from "../src/domain/routing-rules.ts";
import { slackMessage, teamsMessage, ticketEvent, type WebhookNotification } from "../src/domain/webhook-messages.ts";

const rule = (over: Partial<RuleMatch> = {}): RuleMatch => ({
  kinds: [],
  minSeverity: null,
  isActive: true,
  projectId: null,
  channels: [],
  emailRecipients: [],
  ...over,
});
const failed = { kind: "scan.failed", severity: "medium" as const, projectId: "p1" };
const succeeded = { kind: "scan.succeeded", severity: null, projectId: "p1" };

describe("a rule matches", () => {
  it("every kind when kinds is empty, else only the kinds it names", () => {
    expect(ruleMatches(rule(), failed)).toBe(true);
    expect(ruleMatches(rule(), succeeded)).toBe(true);
    expect(ruleMatches(rule({ kinds: ["scan.succeeded"] }), failed)).toBe(false);
    expect(ruleMatches(rule({ kinds: ["scan.succeeded"] }), succeeded)).toBe(true);
  });

  it("min_severity and above; a notification without severity never matches a rule naming one", () => {
    expect(ruleMatches(rule({ minSeverity: "medium" }), failed)).toBe(true);
    expect(ruleMatches(rule({ minSeverity: "low" }), failed)).toBe(true);
    expect(ruleMatches(rule({ minSeverity: "high" }), failed)).toBe(false);
    expect(ruleMatches(rule({ minSeverity: "info" }), succeeded)).toBe(false);
  });

  it("only when active, and only its project when it names one", () => {
    expect(ruleMatches(rule({ isActive: false }), failed)).toBe(false);
    expect(ruleMatches(rule({ projectId: "p2" }), failed)).toBe(false);
    expect(ruleMatches(rule({ projectId: "p1" }), failed)).toBe(true);
  });
});

describe("routing", () => {
  it("adds the channels and addresses of every matching rule, each address once", () => {
    const routing = routingOf(
      [
        rule({ channels: ["slack"], emailRecipients: ["Ops@Example.com"] }),
        rule({ channels: ["email"], emailRecipients: ["ops@example.com", "sec@example.com"], minSeverity: "high" }),
        rule({ channels: ["teams"], emailRecipients: ["qa@example.com"], kinds: ["scan.failed"] }),
      ],
      failed,
    );
    expect([...routing.channels].sort()).toEqual(["slack", "teams"]);
    expect(routing.emailRecipients.sort()).toEqual(["ops@example.com", "qa@example.com"]);
    expect(routingOf([], failed)).toEqual({ channels: new Set(), emailRecipients: [] });
  });

  it("a channel a rule adds is on for a person unless they turned it off themselves", () => {
    expect(wants([], "scan.succeeded", "email")).toBe(false);
    expect(wants([], "scan.succeeded", "email", true)).toBe(true);
    expect(wants([{ kind: "scan.succeeded", channel: "email", enabled: false }], "scan.succeeded", "email", true)).toBe(
      false,
    );
  });

  it("the chat webhooks carry, without a rule, the kinds whose e-mail is on by default", () => {
    expect(chatByDefault("scan.failed")).toBe(true);
    expect(chatByDefault("scan.succeeded")).toBe(false);
    expect(chatByDefault("account.password_reset")).toBe(false);
  });
});

describe("a rule's body", () => {
  const input = (over: Partial<RuleInput> = {}): RuleInput => ({
    name: "Security",
    kinds: [],
    minSeverity: undefined,
    channels: [],
    emailRecipients: [],
    isActive: undefined,
    projectId: undefined,
    ...over,
  });

  it("is stored with its defaults, addresses lower-cased and each value once", () => {
    expect(
      parseRule(input({ name: " Security ", channels: ["slack", "slack"], emailRecipients: ["A@Example.com"] })),
    ).toEqual({
      rule: {
        name: "Security",
        kinds: [],
        minSeverity: null,
        channels: ["slack"],
        emailRecipients: ["a@example.com"],
        isActive: true,
        projectId: null,
      },
    });
  });

  it("refuses unknown kinds, severities and channels, bad addresses and more than 50 of them", () => {
    const bad = parseRule(
      input({
        name: "",
        kinds: ["scan.failed", "nope", "account.password_reset"],
        minSeverity: "severe",
        channels: ["pager"],
        emailRecipients: ["not-an-address"],
        projectId: "x",
      }),
    );
    expect("problems" in bad && bad.problems.map((p) => p.path)).toEqual([
      "name",
      "kinds.1",
      "kinds.2",
      "min_severity",
      "channels.0",
      "email_recipients.0",
      "project_id",
    ]);
    const many = Array.from({ length: 51 }, (_, i) => `p${i}@example.com`);
    expect(parseRule(input({ emailRecipients: many }))).toEqual({
      problems: [{ path: "email_recipients", message: "at most 50 addresses" }],
    });
    expect("rule" in parseRule(input({ emailRecipients: many.slice(0, 50) }))).toBe(true);
  });
});

describe("who manages rules", () => {
  const person = (memberships: Membership[], superuser = false): Caller => ({
    ...ANONYMOUS,
    kind: "user",
    user_id: "u",
    is_superuser: superuser,
    memberships,
  });
  const on = (role: Membership["role"]) => person([{ team_id: "t1", organization_id: "o1", role }]);

  it("an organization's: super_admin changes them; its members read them", () => {
    expect(mayManageOrganizationRules(person([], true))).toBe(true);
    expect(mayManageOrganizationRules(on("group_admin"))).toBe(false);
    expect(mayReadOrganizationRules(on("viewer"), "o1")).toBe(true);
    expect(mayReadOrganizationRules(on("viewer"), "o2")).toBe(false);
  });

  it("a team's: team_admin and above change them, any member reads them", () => {
    expect(mayManageTeamRules(on("team_admin"), "t1")).toBe(true);
    expect(mayManageTeamRules(on("group_admin"), "t1")).toBe(true);
    expect(mayManageTeamRules(on("developer"), "t1")).toBe(false);
    expect(mayManageTeamRules(on("team_admin"), "t2")).toBe(false);
    expect(mayReadTeamRules(on("viewer"), "t1")).toBe(true);
    expect(mayReadTeamRules(on("viewer"), "t2")).toBe(false);
    expect(mayReadTeamRules(person([], true), "t2")).toBe(true);
  });
});

describe("webhook bodies", () => {
  const n: WebhookNotification = {
    eventId: "e1",
    kind: "scan.failed",
    severity: "medium",
    title: "Scan failed: sbom scan",
    body: "No SBOM <uploaded> & nothing to read",
    url: "https://portal.example.com/projects/p1/scans/s1",
    organizationId: "o1",
    teamId: "t1",
    projectId: "p1",
    scanId: "s1",
    occurredAt: new Date("2026-11-24T10:00:00.000Z"),
  };

  it("Slack: blocks with a header, the body in escaped mrkdwn and a link button, and text as the fallback", () => {
    const m = slackMessage(n) as { text: string; blocks: Record<string, unknown>[] };
    expect(m.text).toBe("Scan failed: sbom scan: No SBOM <uploaded> & nothing to read");
    expect(m.blocks.map((b) => b.type)).toEqual(["header", "section", "context", "actions"]);
    expect(m.blocks[1]).toEqual({
      type: "section",
      text: { type: "mrkdwn", text: "No SBOM &lt;uploaded&gt; &amp; nothing to read" },
    });
    expect(JSON.stringify(m.blocks[3])).toContain(n.url);
    const long = slackMessage({ ...n, title: "x".repeat(400), url: null }) as typeof m;
    expect((long.blocks[0]!.text as { text: string }).text.length).toBe(150);
    expect(long.blocks).toHaveLength(3);
  });

  it("Teams: a message with one Adaptive Card attachment", () => {
    const m = teamsMessage(n) as {
      type: string;
      attachments: { contentType: string; content: Record<string, unknown> }[];
    };
    expect(m.type).toBe("message");
    expect(m.attachments).toHaveLength(1);
    expect(m.attachments[0]!.contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(m.attachments[0]!.content).toMatchObject({
      type: "AdaptiveCard",
      version: "1.4",
      actions: [{ type: "Action.OpenUrl", url: n.url }],
    });
  });

  it("a ticket event carries the notification's ids and times", () => {
    expect(ticketEvent(n)).toEqual({
      schema: "sca.ticket-event.v1",
      event_id: "e1",
      kind: "scan.failed",
      severity: "medium",
      title: n.title,
      body: n.body,
      url: n.url,
      organization_id: "o1",
      team_id: "t1",
      project_id: "p1",
      scan_id: "s1",
      occurred_at: "2026-11-24T10:00:00.000Z",
    });
  });
});

describe("the queue backlog", () => {
  const reading = (queue: "scan" | "default", waiting: number, threshold: number) => ({ queue, waiting, threshold });

  it("a breach begins over the threshold, alerts once while it lasts, and ends at or under it", () => {
    expect(backlogChanges([reading("scan", 11, 10), reading("default", 100, 100)], new Set())).toEqual({
      begun: [reading("scan", 11, 10)],
      ended: [],
    });
    expect(backlogChanges([reading("scan", 50, 10)], new Set(["scan"]))).toEqual({ begun: [], ended: [] });
    expect(backlogChanges([reading("scan", 10, 10), reading("default", 0, 100)], new Set(["scan"]))).toEqual({
      begun: [],
      ended: ["scan"],
    });
  });

  it("the alert names the queue, what waits and the threshold", () => {
    expect(backlogNotification(reading("default", 250, 100))).toMatchObject({
      kind: "queue.backlog",
      severity: "medium",
      title: "Queue backlog: 250 messages waiting in the default queue",
    });
  });
});
