// Routing rules and the webhook channels against real servers: identity (recipients, a team's organization), real
// Kafka and PostgreSQL, a real SMTP server (smtp-server, STARTTLS under a test CA) and three real HTTP servers
// standing for Slack, Teams and a ticket tracker, one of which answers 500 and one of which never answers before
// the notifier's timeout. ScanStateChanged is published as the scan-orchestrator publishes it.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { uuidv7 } from "@sca/kafka";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { DirectoryLookupService } from "@sca/proto/sca/identity/v1/directory_lookup_pb.ts";
import { NotificationRuleService } from "@sca/proto/sca/notifier/v1/notification_rules_pb.ts";
import { NotificationService } from "@sca/proto/sca/notifier/v1/notifier_pb.ts";
import {
  callAs,
  fixturesOf,
  startTestSmtpServer,
  startTestWebhookReceiver,
  type ReceivedMail,
  type ReceivedRequest,
  type TestService,
  type TestSmtpServer,
  type TestWebhookReceiver,
  eventually,
} from "@sca/testkit";
import { Delivery } from "../src/store/entities/delivery.ts";
import { startNotifierWithIdentity, type NotifierWithIdentity } from "./support/notifier-with-identity.ts";

const SLACK_SECRET_PATH = "/services/T0000/B0000/slack-url-secret-part";
const TEAMS_SECRET_PATH = "/workflows/teams-url-secret-part/triggers/manual/run";
const TICKET_TOKEN = "ticket-bearer-token-not-to-be-logged";

let identity: TestService;
let notifier: TestService;
let smtp: TestSmtpServer;
let slack: TestWebhookReceiver;
let teams: TestWebhookReceiver;
let tickets: TestWebhookReceiver;
let stack: NotifierWithIdentity;
let logLines: string[];

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  slack = await startTestWebhookReceiver();
  teams = await startTestWebhookReceiver();
  tickets = await startTestWebhookReceiver();
  stack = await startNotifierWithIdentity("routes", {
    env: {
      PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password",
      SMTP_HOST: smtp.host,
      SMTP_PORT: String(smtp.port),
      SMTP_USE_STARTTLS: "true",
      SMTP_TIMEOUT_SECONDS: "5",
      NOTIFICATION_HTTP_TIMEOUT_SECONDS: "1",
      SLACK_WEBHOOK_URL: `${slack.origin}${SLACK_SECRET_PATH}`,
      TEAMS_WEBHOOK_URL: `${teams.origin}${TEAMS_SECRET_PATH}`,
      TICKET_WEBHOOK_URL: `${tickets.origin}/tickets/events`,
      TICKET_WEBHOOK_EVENTS: "scan.failed",
      TICKET_WEBHOOK_TOKEN: TICKET_TOKEN,
    },
    seams: { deliveryEveryMs: 200, deliveryRetryBaseMs: 300, smtpTrust: { ca: smtp.caPem } },
  });
  ({ identity, notifier, logLines } = stack);
}, 90_000);

afterAll(async () => {
  await stack?.close();
  await Promise.all([smtp?.close(), slack?.close(), teams?.close(), tickets?.close()]);
}, 120_000);

interface TeamOf {
  id: string;
  organizationId: string;
}

async function team(): Promise<TeamOf> {
  const { team: t } = await identity
    .client(DirectoryService)
    .createTeam({ name: "Routes", slug: `r-${randomUUID().slice(0, 8)}` }, await callAs.superAdmin(randomUUID()));
  const { teams: found } = await identity
    .client(DirectoryLookupService)
    .lookupDirectory({ teamIds: [t!.id] }, await callAs.service("notifier"));
  return { id: t!.id, organizationId: found[0]!.organizationId! };
}

async function member(t: TeamOf, role: string): Promise<{ id: string; email: string }> {
  const fixtures = await fixturesOf("identity");
  const email = `${randomUUID().slice(0, 12)}@example.com`;
  const id = await fixtures.user(identity.orm, { email });
  await identity
    .client(DirectoryService)
    .addTeamMember({ teamId: t.id, userId: id, role }, await callAs.superAdmin(randomUUID()));
  return { id, email };
}

const as = (userId: string, t: TeamOf, role: "team_admin" | "developer") =>
  callAs.user(userId, { memberships: [{ team_id: t.id, organization_id: t.organizationId, role }] });
const listOf = async (userId: string) =>
  notifier
    .client(NotificationService)
    .listNotifications({ page: { page: 1, pageSize: 50 } }, await callAs.user(userId));
const mailTo = (address: string) => (m: ReceivedMail) => m.to.includes(address);
const scanEvent = (t: TeamOf, projectId: string, status: "failed" | "succeeded", ref: string) => ({
  scanId: randomUUID(),
  projectId,
  teamId: t.id,
  kind: "sbom",
  status,
  previousStatus: "running",
  ref,
  attempt: 1,
  ...(status === "failed" ? { errorMessage: "No SBOM was uploaded." } : {}),
});
const slackText = (r: ReceivedRequest) => (JSON.parse(r.body) as { text: string }).text;
const teamsTitle = (r: ReceivedRequest) =>
  (JSON.parse(r.body) as { attachments: { content: { body: { text: string }[] } }[] }).attachments[0]!.content.body[0]!
    .text;

describe("routing rules", () => {
  it("a team's and its organization's rules add channels and addresses; a severity rule never matches a kind without one", async () => {
    const t = await team();
    const lead = await member(t, "team_admin");
    const dev = await member(t, "developer");
    const viewer = await member(t, "viewer");
    const other = await team();
    const outsider = await member(other, "developer");
    const projectId = randomUUID();
    const tag = randomUUID().slice(0, 8);
    const onCall = `oncall-${tag}@example.com`;
    const orgWatch = `org-watch-${tag}@example.com`;
    const never = `never-${tag}@example.com`;
    const rules = notifier.client(NotificationRuleService);

    // The team's rule: scan.succeeded also by e-mail and to Slack, and to an on-call address.
    const teamRule = await rules.createTeamRule(
      {
        teamId: t.id,
        rule: {
          name: "Successes too",
          kinds: ["scan.succeeded"],
          channels: ["email", "slack"],
          emailRecipients: [onCall],
        },
      },
      await as(lead.id, t, "team_admin"),
    );
    expect(teamRule.rule).toMatchObject({ teamId: t.id, organizationId: t.organizationId, isActive: true });
    // The organization's (super_admin), narrowed to this project so no other test's notifications match: every kind
    // to Teams and an address; and one naming a severity, which a scan.succeeded (none) never matches.
    const admin = await callAs.superAdmin(randomUUID());
    const everyKind = await rules.createOrganizationRule(
      {
        organizationId: t.organizationId,
        rule: { name: "Org watch", projectId, channels: ["teams"], emailRecipients: [orgWatch.toUpperCase()] },
      },
      admin,
    );
    const severe = await rules.createOrganizationRule(
      {
        organizationId: t.organizationId,
        rule: { name: "Severe only", projectId, minSeverity: "info", emailRecipients: [never] },
      },
      admin,
    );

    try {
      const ref = `routes-${tag}`;
      await stack.publishScanState(uuidv7(), scanEvent(t, projectId, "succeeded", ref));

      // E-mail: the developer and lead by the rule's added channel (default off for scan.succeeded), and both
      // addresses; Slack by the team's rule, Teams by the organization's; no ticket (TICKET_WEBHOOK_EVENTS).
      for (const address of [dev.email, lead.email, onCall, orgWatch]) await smtp.waitFor(mailTo(address));
      const toSlack = await slack.waitFor((r) => slackText(r).includes(ref));
      expect(toSlack.path).toBe(SLACK_SECRET_PATH);
      await teams.waitFor((r) => teamsTitle(r).includes(ref));
      const mine = await eventually(
        () => listOf(dev.id),
        (l) => l.items.length > 0,
      );
      expect(mine.items.map((n) => n.kind)).toEqual(["scan.succeeded"]);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(smtp.received.some(mailTo(never))).toBe(false);
      expect(smtp.received.some((m) => m.to.includes(viewer.email) || m.to.includes(outsider.email))).toBe(false);
      expect(smtp.received.filter(mailTo(onCall))).toHaveLength(1);
      expect(tickets.received.some((r) => r.body.includes(ref))).toBe(false);
      // Rules add e-mail addresses, not in-app rows: the viewer and the other team's developer have nothing.
      expect((await listOf(viewer.id)).items).toHaveLength(0);
      expect((await listOf(outsider.id)).items).toHaveLength(0);

      // The team's list carries its organization's rules first; a developer reads them but may not add or remove.
      const listed = await rules.listTeamRules({ teamId: t.id }, await as(dev.id, t, "developer"));
      expect(listed.items.map((r) => r.id)).toEqual(
        expect.arrayContaining([everyKind.rule!.id, severe.rule!.id, teamRule.rule!.id]),
      );
      expect(listed.items.at(-1)!.id).toBe(teamRule.rule!.id);
      await expect(rules.deleteRule({ id: teamRule.rule!.id }, await as(dev.id, t, "developer"))).rejects.toMatchObject(
        { rawMessage: expect.stringMatching(/team_admin/) },
      );
      await expect(
        rules.deleteRule({ id: teamRule.rule!.id }, await as(outsider.id, other, "developer")),
      ).rejects.toMatchObject({ rawMessage: expect.stringMatching(/No such rule/) });
      await rules.deleteRule({ id: teamRule.rule!.id }, await as(lead.id, t, "team_admin"));

      // Without the team's rule a scan.succeeded goes in-app only again (and to the organization's rule).
      const quiet = `quiet-${tag}`;
      await stack.publishScanState(uuidv7(), scanEvent(t, projectId, "succeeded", quiet));
      await teams.waitFor((r) => teamsTitle(r).includes(quiet));
      await new Promise((r) => setTimeout(r, 1_000));
      expect(smtp.received.filter(mailTo(onCall))).toHaveLength(1);
      expect(slack.received.some((r) => slackText(r).includes(quiet))).toBe(false);
    } finally {
      await rules.deleteRule({ id: everyKind.rule!.id }, admin);
      await rules.deleteRule({ id: severe.rule!.id }, admin);
    }
  });
});

describe("the webhooks", () => {
  it("Slack answering 500 and Teams not answering in time are tried again and arrive once; the ticket event carries the bearer; no secret is logged", async () => {
    const t = await team();
    const dev = await member(t, "developer");
    const ref = `hooks-${randomUUID().slice(0, 8)}`;
    slack.answerNext(500);
    teams.answerNext("hang");
    const eventId = uuidv7();
    const fields = scanEvent(t, randomUUID(), "failed", ref);
    await stack.publishScanState(eventId, fields);
    await stack.publishScanState(eventId, fields); // redelivered: adds nothing

    const delivered = (r: TestWebhookReceiver, match: (r: ReceivedRequest) => boolean) =>
      eventually(
        () => Promise.resolve(r.accepted().filter(match)),
        (found) => found.length > 0,
      );
    const [sentToSlack] = await delivered(slack, (r) => slackText(r).includes(ref));
    const [sentToTeams] = await delivered(teams, (r) => teamsTitle(r).includes(ref));
    const [ticket] = await delivered(tickets, (r) => r.body.includes(ref));

    // Slack: the refused try and the accepted one, with the same Idempotency-Key; the body is Block Kit.
    const slackTries = slack.received.filter((r) => slackText(r).includes(ref));
    expect(slackTries.map((r) => r.answered)).toEqual([500, 200]);
    expect(new Set(slackTries.map((r) => r.headers["idempotency-key"])).size).toBe(1);
    expect(sentToSlack!.headers["content-type"]).toBe("application/json");
    const slackBody = JSON.parse(sentToSlack!.body) as { blocks: { type: string }[] };
    expect(slackBody.blocks.map((b) => b.type)).toEqual(["header", "section", "context", "actions"]);
    expect(sentToSlack!.body).toContain(
      `https://portal.example.com/projects/${fields.projectId}/scans/${fields.scanId}`,
    );
    // Teams: the try left hanging past NOTIFICATION_HTTP_TIMEOUT_SECONDS, then the accepted one.
    expect(teams.received.filter((r) => teamsTitle(r).includes(ref)).map((r) => r.answered)).toEqual(["hang", 200]);
    expect(JSON.parse(sentToTeams!.body)).toMatchObject({
      type: "message",
      attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", content: { type: "AdaptiveCard" } }],
    });
    // The ticket event: bearer, and the notification's fields.
    expect(ticket!.headers.authorization).toBe(`Bearer ${TICKET_TOKEN}`);
    expect(ticket!.path).toBe("/tickets/events");
    expect(JSON.parse(ticket!.body)).toMatchObject({
      schema: "sca.ticket-event.v1",
      event_id: eventId,
      kind: "scan.failed",
      severity: "medium",
      team_id: t.id,
      organization_id: t.organizationId,
      project_id: fields.projectId,
      scan_id: fields.scanId,
    });

    // Once each, however often the event came and however often a channel was tried; one in-app notification.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(slack.accepted().filter((r) => slackText(r).includes(ref))).toHaveLength(1);
    expect(teams.accepted().filter((r) => teamsTitle(r).includes(ref))).toHaveLength(1);
    expect(tickets.received.filter((r) => r.body.includes(ref))).toHaveLength(1);
    expect((await listOf(dev.id)).items).toHaveLength(1);
    const rows = await notifier.orm.em
      .fork()
      .find(Delivery, { sourceEventId: eventId }, { orderBy: { channel: "asc" } });
    expect(rows.map((d) => [d.channel, d.status, d.attempts])).toEqual([
      ["email", "sent", 1],
      ["slack", "sent", 2],
      ["teams", "sent", 2],
      ["ticket", "sent", 1],
    ]);

    // The failures were logged with what the other end answered, never with a URL's secret part or the token.
    expect(logLines.some((l) => l.includes("could not send a Slack message") && l.includes("HTTP 500"))).toBe(true);
    expect(logLines.some((l) => l.includes("could not send a Teams message") && l.includes("timeout"))).toBe(true);
    const all = logLines.join("\n");
    for (const secret of ["slack-url-secret-part", "teams-url-secret-part", TICKET_TOKEN])
      expect(all).not.toContain(secret);
  });
});
