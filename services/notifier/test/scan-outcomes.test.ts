// The notifier's consumer of scan outcomes against a real identity (the recipients), real Kafka and PostgreSQL:
// a ScanStateChanged published as the scan-orchestrator publishes it. Here without SMTP_HOST: the e-mail channel
// is skipped (said once at start), the in-app channel still works, and a redelivered event adds nothing.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { Code } from "@connectrpc/connect";
import { uuidv7 } from "@sca/kafka";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { NotificationService } from "@sca/proto/sca/notifier/v1/notifier_pb.ts";
import { callAs, eventually, fixturesOf, type TestService } from "@sca/testkit";
import { Delivery } from "../src/store/entities/delivery.ts";
import { startNotifierWithIdentity, type NotifierWithIdentity } from "./support/notifier-with-identity.ts";

let identity: TestService;
let notifier: TestService;
let stack: NotifierWithIdentity;
let logLines: string[];

beforeAll(async () => {
  stack = await startNotifierWithIdentity("outcomes");
  ({ identity, notifier, logLines } = stack);
}, 90_000);

afterAll(async () => {
  await stack?.close();
});

describe("scan.succeeded", () => {
  it("reaches the team's developers and the requester once, however often the event comes, with no e-mail queued", async () => {
    const admin = await callAs.superAdmin(randomUUID());
    const directory = identity.client(DirectoryService);
    const fixtures = await fixturesOf("identity");
    const { team } = await directory.createTeam({ name: "Outcomes", slug: `o-${randomUUID().slice(0, 8)}` }, admin);
    const dev = await fixtures.user(identity.orm, {});
    await directory.addTeamMember({ teamId: team!.id, userId: dev, role: "developer" }, admin);
    const viewer = await fixtures.user(identity.orm, {});
    await directory.addTeamMember({ teamId: team!.id, userId: viewer, role: "viewer" }, admin);
    const requester = await fixtures.user(identity.orm, {});

    const scanId = randomUUID();
    const eventId = uuidv7();
    const fields = {
      scanId,
      projectId: randomUUID(),
      teamId: team!.id,
      kind: "sbom",
      status: "succeeded",
      previousStatus: "running",
      attempt: 1,
      requestedByUserId: requester,
    };
    await stack.publishScanState(eventId, fields);
    await stack.publishScanState(eventId, fields); // redelivered
    // A later, unrelated move (queued -> running) raises nothing.
    await stack.publishScanState(uuidv7(), {
      ...fields,
      scanId: randomUUID(),
      status: "running",
      previousStatus: "queued",
    });

    const notifications = notifier.client(NotificationService);
    const listOf = async (userId: string) =>
      notifications.listNotifications({ page: { page: 1, pageSize: 50 } }, await callAs.user(userId));
    const mine = await eventually(
      () => listOf(dev),
      (l) => l.items.length > 0,
    );
    expect(mine.items.map((n) => [n.kind, n.scanId, n.severity])).toEqual([["scan.succeeded", scanId, undefined]]);
    expect(mine.unreadCount).toBe(1);
    expect((await listOf(requester)).items.map((n) => n.scanId)).toEqual([scanId]);
    // Later events were applied after the redelivery; still one each, and nothing for the viewer.
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await listOf(dev)).items).toHaveLength(1);
    expect((await listOf(viewer)).items).toHaveLength(0);
    expect(await notifier.orm.em.fork().count(Delivery, {})).toBe(0);
    expect(logLines.filter((l) => l.includes("SMTP_HOST is not set"))).toHaveLength(1);
  });
});

describe("who may call", () => {
  it("a person only: nobody is Unauthenticated, an API key PermissionDenied, even its holder's", async () => {
    const notifications = notifier.client(NotificationService);
    await expect(notifications.countUnread({})).rejects.toMatchObject({ code: Code.Unauthenticated });
    const holder = randomUUID();
    const key = await callAs.apiKey(
      randomUUID(),
      { scope: "org", organization_id: null, team_id: null, project_id: null, permission_breadth: "read_write" },
      { userId: holder },
    );
    await expect(notifications.countUnread({}, key)).rejects.toMatchObject({ code: Code.PermissionDenied });
    await expect(notifications.markAllRead({}, key)).rejects.toMatchObject({ code: Code.PermissionDenied });
    expect((await notifications.countUnread({}, await callAs.user(holder))).count).toBe(0);
  });
});
