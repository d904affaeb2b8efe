// A team's own chat webhooks against real servers: identity (the team, its people, its organization), real Kafka and
// PostgreSQL, and three real HTTP servers standing for the organization's Slack and a team's own Slack and Teams.
// Who may set and read them, what a read shows (never the URL), that the URL rests sealed and in no log line, the
// audit event, and that the team's notifications (a ScanStateChanged into failed, as the scan-orchestrator
// publishes it) reach the team's URLs as well as the organization's, in the same formats, retried the same way.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { fromBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { TOPICS, uuidv7 } from "@sca/kafka";
import { AuditEventSchema } from "@sca/proto/sca/events/v1/audit_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { DirectoryLookupService } from "@sca/proto/sca/identity/v1/directory_lookup_pb.ts";
import { TeamChatWebhookService } from "@sca/proto/sca/notifier/v1/team_chat_webhooks_pb.ts";
import {
  callAs,
  EventReader,
  startTestWebhookReceiver,
  type ReceivedRequest,
  type TestService,
  type TestWebhookReceiver,
} from "@sca/testkit";
import { startNotifierWithIdentity, type NotifierWithIdentity } from "./support/notifier-with-identity.ts";

const TEAM_SLACK_SECRET = "/services/T1111/B1111/team-slack-secret-part";
const TEAM_TEAMS_SECRET = "/workflows/team-teams-secret-part/triggers/manual/run";

let identity: TestService;
let notifier: TestService;
let orgSlack: TestWebhookReceiver;
let teamSlack: TestWebhookReceiver;
let teamTeams: TestWebhookReceiver;
let audit: EventReader;
let stack: NotifierWithIdentity;
let logLines: string[];

beforeAll(async () => {
  orgSlack = await startTestWebhookReceiver();
  teamSlack = await startTestWebhookReceiver();
  teamTeams = await startTestWebhookReceiver();
  stack = await startNotifierWithIdentity("team_chat", {
    env: {
      NOTIFICATION_HTTP_TIMEOUT_SECONDS: "1",
      SLACK_WEBHOOK_URL: `${orgSlack.origin}/services/org`,
      TEAM_CHAT_WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
    },
    seams: { deliveryEveryMs: 200, deliveryRetryBaseMs: 300 },
  });
  ({ identity, notifier, logLines } = stack);
  audit = await EventReader.start(notifier.kafka!, TOPICS.auditEvents);
}, 90_000);

afterAll(async () => {
  await audit?.stop();
  await stack?.close();
  await Promise.all([orgSlack?.close(), teamSlack?.close(), teamTeams?.close()]);
}, 120_000);

interface TeamOf {
  id: string;
  organizationId: string;
}

async function team(): Promise<TeamOf> {
  const { team: t } = await identity
    .client(DirectoryService)
    .createTeam({ name: "Chat", slug: `c-${randomUUID().slice(0, 8)}` }, await callAs.superAdmin(randomUUID()));
  const { teams: found } = await identity
    .client(DirectoryLookupService)
    .lookupDirectory({ teamIds: [t!.id] }, await callAs.service("notifier"));
  return { id: t!.id, organizationId: found[0]!.organizationId! };
}

const as = (t: TeamOf, role: "team_admin" | "developer") =>
  callAs.user(randomUUID(), { memberships: [{ team_id: t.id, organization_id: t.organizationId, role }] });

async function code(call: Promise<unknown>): Promise<Code | undefined> {
  try {
    await call;
    return undefined;
  } catch (err) {
    return ConnectError.from(err).code;
  }
}

async function scanFailed(t: TeamOf, ref: string) {
  await stack.publishScanState(uuidv7(), {
    scanId: randomUUID(),
    projectId: randomUUID(),
    teamId: t.id,
    kind: "sbom",
    status: "failed",
    previousStatus: "running",
    ref,
    attempt: 1,
    errorMessage: "No SBOM was uploaded.",
  });
}

/** JSON of messages holding 64-bit integers (timestamps). */
const json = (x: unknown) => JSON.stringify(x, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v));
const slackText = (r: ReceivedRequest) => (JSON.parse(r.body) as { text: string }).text;
const teamsTitle = (r: ReceivedRequest) =>
  (JSON.parse(r.body) as { attachments: { content: { body: { text: string }[] } }[] }).attachments[0]!.content.body[0]!
    .text;

describe("a team's own chat webhooks", () => {
  it("team_admins set them write-only; lesser members 403, outsiders and keys refused; audited without the URL", async () => {
    const t = await team();
    const other = await team();
    const hooks = notifier.client(TeamChatWebhookService);
    const lead = await as(t, "team_admin");
    const slackUrl = `${teamSlack.origin}${TEAM_SLACK_SECRET}`;

    expect((await hooks.getTeamChatWebhooks({ teamId: t.id }, lead)).webhooks).toMatchObject({
      teamId: t.id,
      slack: { configured: false, host: "" },
      teams: { configured: false, host: "" },
    });
    expect(await code(hooks.putTeamChatWebhooks({ teamId: t.id, slackUrl }, await as(t, "developer")))).toBe(
      Code.PermissionDenied,
    );
    expect(await code(hooks.getTeamChatWebhooks({ teamId: t.id }, await as(other, "team_admin")))).toBe(Code.NotFound);
    const key = await callAs.apiKey(
      randomUUID(),
      {
        scope: "team",
        organization_id: t.organizationId,
        team_id: t.id,
        project_id: null,
        permission_breadth: "read_write",
      },
      { memberships: [{ team_id: t.id, organization_id: t.organizationId, role: "team_admin" }] },
    );
    expect(await code(hooks.putTeamChatWebhooks({ teamId: t.id, slackUrl }, key))).toBe(Code.PermissionDenied);
    expect(await code(hooks.putTeamChatWebhooks({ teamId: t.id, slackUrl: "ftp://example.com/x" }, lead))).toBe(
      Code.InvalidArgument,
    );
    expect(
      await code(hooks.putTeamChatWebhooks({ teamId: t.id, slackUrl: "https://user:pw@example.com/x" }, lead)),
    ).toBe(Code.InvalidArgument);
    // Only the hosts the deployment allows (TEAM_CHAT_WEBHOOK_ALLOWED_HOSTS): no pointing the notifier elsewhere.
    expect(await code(hooks.putTeamChatWebhooks({ teamId: t.id, slackUrl: "http://10.0.0.1/hook" }, lead))).toBe(
      Code.InvalidArgument,
    );

    const put = await hooks.putTeamChatWebhooks({ teamId: t.id, slackUrl }, lead);
    expect(put.webhooks).toMatchObject({
      slack: { configured: true, host: new URL(teamSlack.origin).host },
      teams: { configured: false },
    });
    expect(json(put)).not.toContain("team-slack-secret-part");
    // Sealed at rest.
    const [row] = await notifier.orm.em
      .getConnection()
      .execute<{ slack_url_sealed: string }[]>("select slack_url_sealed from team_chat_webhooks where team_id = ?", [
        t.id,
      ]);
    expect(row!.slack_url_sealed).toBeTruthy();
    expect(row!.slack_url_sealed).not.toContain("secret-part");
    // Left out keeps it; null-ing (clear) removes it.
    const teamsAdded = await hooks.putTeamChatWebhooks(
      { teamId: t.id, teamsUrl: `${teamTeams.origin}${TEAM_TEAMS_SECRET}` },
      lead,
    );
    expect(teamsAdded.webhooks).toMatchObject({ slack: { configured: true }, teams: { configured: true } });

    const auditOf = async () =>
      (
        await audit.waitFor(AuditEventSchema, (e) => e.teamId === t.id && e.targetTable === "team_chat_webhooks", 2)
      ).map((e) => [e.action, e.targetTable]);
    expect(await auditOf()).toEqual([
      ["team_chat_webhooks.updated", "team_chat_webhooks"],
      ["team_chat_webhooks.updated", "team_chat_webhooks"],
    ]);
    const raw = audit.seen
      .filter((r) => r.type === AuditEventSchema.typeName)
      .map((r) => fromBinary(AuditEventSchema, r.value));
    expect(json(raw.filter((e) => e.teamId === t.id))).not.toContain("secret-part");

    const removed = await hooks.putTeamChatWebhooks({ teamId: t.id, clearTeams: true }, lead);
    expect(removed.webhooks).toMatchObject({ slack: { configured: true }, teams: { configured: false } });
    expect((await hooks.deleteTeamChatWebhooks({ teamId: t.id }, lead)).deleted).toBe(true);
    expect((await hooks.getTeamChatWebhooks({ teamId: t.id }, lead)).webhooks?.slack?.configured).toBe(false);
  });

  it("a team's notifications reach its own Slack and Teams as well as the organization's, retried the same way", async () => {
    const t = await team();
    const quiet = await team();
    const hooks = notifier.client(TeamChatWebhookService);
    await hooks.putTeamChatWebhooks(
      {
        teamId: t.id,
        slackUrl: `${teamSlack.origin}${TEAM_SLACK_SECRET}`,
        teamsUrl: `${teamTeams.origin}${TEAM_TEAMS_SECRET}`,
      },
      await as(t, "team_admin"),
    );
    const ref = `team-chat-${randomUUID().slice(0, 8)}`;
    const quietRef = `quiet-${randomUUID().slice(0, 8)}`;
    // The team's Slack answers 500 once: tried again, arriving once more with the same Idempotency-Key.
    teamSlack.answerNext(500);
    await scanFailed(t, ref);
    await scanFailed(quiet, quietRef);

    const toTeamSlack = await teamSlack.waitFor((r) => r.answered === 200 && slackText(r).includes(ref));
    expect(toTeamSlack.path).toBe(TEAM_SLACK_SECRET);
    const tries = teamSlack.received.filter((r) => slackText(r).includes(ref));
    expect(tries.map((r) => r.answered)).toEqual([500, 200]);
    expect(tries[0]!.headers["idempotency-key"]).toBe(tries[1]!.headers["idempotency-key"]);
    const toTeamTeams = await teamTeams.waitFor((r) => teamsTitle(r).includes(ref));
    expect(toTeamTeams.path).toBe(TEAM_TEAMS_SECRET);
    // The organization's Slack gets both teams' failures; the team URLs only their own team's.
    await orgSlack.waitFor((r) => slackText(r).includes(ref));
    await orgSlack.waitFor((r) => slackText(r).includes(quietRef));
    await new Promise((r) => setTimeout(r, 1_000));
    expect(teamSlack.received.some((r) => slackText(r).includes(quietRef))).toBe(false);
    expect(teamTeams.received.some((r) => teamsTitle(r).includes(quietRef))).toBe(false);
    expect(teamSlack.received.filter((r) => r.answered === 200 && slackText(r).includes(ref))).toHaveLength(1);

    // No log line holds a URL's secret part.
    expect(logLines.some((l) => l.includes("secret-part"))).toBe(false);
  });
});
