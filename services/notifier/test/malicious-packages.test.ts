// package.malicious end to end through the real servers: projects (the component states recorded as the
// scanner-runner records them), identity (the team and its people) and the notifier share one topic prefix, so the
// MaliciousComponentsFlagged projects writes to its outbox is the event the notifier turns into package.malicious:
// to the team's developers and admins, not its viewers; once per component becoming flagged (a replayed stamping, a
// rescan of a component already flagged, a redelivered event add nothing).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { create, toBinary } from "@bufbuild/protobuf";
import { bytesSource, DirectoryArtefactStore } from "@sca/artefacts";
import { EVENT_ID, EVENT_TYPE, TOPICS } from "@sca/kafka";
import { MaliciousComponentsFlaggedSchema } from "@sca/proto/sca/events/v1/projects_pb.ts";
import { ScanArtefactSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { NotificationService } from "@sca/proto/sca/notifier/v1/notifier_pb.ts";
import { ComponentStateService } from "@sca/proto/sca/projects/v1/component_states_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { callAs, eventually, EventReader, fixturesOf, type TestService } from "@sca/testkit";
import { startProjectsAndNotifier, type ProjectsAndNotifier } from "./support/projects-and-notifier.ts";
import { teamWithProject } from "./support/team-project.ts";

let stack: ProjectsAndNotifier;
let identity: TestService;
let projects: TestService;
let notifier: TestService;
let dir: string;
let events: EventReader;

beforeAll(async () => {
  stack = await startProjectsAndNotifier("malicious");
  ({ identity, projects, notifier, dir } = stack);
  events = await EventReader.start(projects.kafka!, TOPICS.domainEvents);
}, 90_000);

afterAll(async () => {
  await events?.stop();
  await stack?.close();
}, 120_000);

const flagged = (purl: string, id: string) => ({
  purl,
  maliciousState: "flagged",
  maliciousId: id,
  maliciousSource: "ghsa-malware",
});

describe("package.malicious", () => {
  it("reaches the team's developers once per component becoming flagged, at a scan and at a re-stamp", async () => {
    const inventoryFixtures = await fixturesOf("projects");
    const { teamId, dev, viewer, projectId } = await teamWithProject(identity, projects, "Mal");
    const runner = await callAs.service("scanner-runner");
    const store = new DirectoryArtefactStore(dir);
    const ingest = async () => {
      const stored = await store.put(
        `inventory/${randomUUID()}.pb`,
        bytesSource(inventoryFixtures.findingsArtefact()),
        { maxBytes: 1024 ** 2 },
      );
      const scanId = randomUUID();
      const inventory = create(ScanArtefactSchema, {
        key: stored.key,
        sizeBytes: BigInt(stored.sizeBytes),
        sha256: stored.sha256,
      });
      await projects
        .client(InventoryService)
        .ingestInventory({ scanId, projectId, attempt: 1, ref: "", inventory }, runner);
      return scanId;
    };
    const { leftPad, lodash } = inventoryFixtures.purls;
    const states = projects.client(ComponentStateService);

    // A scan's stamping flags left-pad; replayed, it changes nothing.
    const first = await ingest();
    const scanStates = { projectId, scanId: first, states: [flagged(leftPad, "MAL-2099-0001"), { purl: lodash }] };
    await states.recordComponentStates(scanStates, runner);
    expect((await states.recordComponentStates(scanStates, runner)).updated).toBe(0);

    // A refreshed snapshot flags lodash too (left-pad, already flagged, is not news).
    const restamp = {
      feeds: ["malicious"],
      states: [flagged(leftPad, "MAL-2099-0001"), flagged(lodash, "MAL-2099-0002")],
    };
    expect(await states.restampComponentStates(restamp, runner)).toMatchObject({
      updated: 1,
      newlyFlagged: 1,
      projectsTouched: 1,
    });
    expect(await states.restampComponentStates(restamp, runner)).toMatchObject({ updated: 0, newlyFlagged: 0 });

    // A rescan holding both, already flagged in the previous snapshot: nothing new.
    const second = await ingest();
    await states.recordComponentStates(
      { projectId, scanId: second, states: [flagged(leftPad, "MAL-2099-0001"), flagged(lodash, "MAL-2099-0002")] },
      runner,
    );

    const published = await events.waitFor(MaliciousComponentsFlaggedSchema, (e) => e.projectId === projectId, 2);
    expect(published.map((e) => [e.cause, e.teamId, e.flaggedCount, e.components.map((c) => c.name)])).toEqual([
      ["scan", teamId, 1, ["left-pad"]],
      ["snapshot_refresh", teamId, 1, ["lodash"]],
    ]);
    expect(published[0]!.components[0]).toMatchObject({
      version: "1.3.0",
      purl: leftPad,
      maliciousId: "MAL-2099-0001",
      maliciousSource: "ghsa-malware",
    });

    // The first event delivered again (as Kafka may): still one notification per event.
    const producer = projects.kafka!.producer();
    await producer.connect();
    const again = published[0]!;
    await producer.send({
      topic: projects.kafka!.topicName(TOPICS.domainEvents),
      acks: -1,
      messages: [
        {
          key: projectId,
          value: Buffer.from(toBinary(MaliciousComponentsFlaggedSchema, again)),
          headers: { [EVENT_ID]: again.eventId, [EVENT_TYPE]: MaliciousComponentsFlaggedSchema.typeName },
        },
      ],
    });
    await producer.disconnect();

    const notifications = notifier.client(NotificationService);
    const listOf = async (userId: string) =>
      (await notifications.listNotifications({ page: { page: 1, pageSize: 50 } }, await callAs.user(userId))).items;
    const mine = await eventually(
      () => listOf(dev),
      (items) => items.length >= 2,
      30_000,
    );
    expect(mine.map((n) => [n.kind, n.severity, n.projectId, n.title]).sort()).toEqual([
      ["package.malicious", "critical", projectId, "1 known-malicious package is in the project"],
      ["package.malicious", "critical", projectId, "1 known-malicious package is in the project"],
    ]);
    expect(mine.map((n) => n.body).sort()).toEqual([
      "Flagged by the malicious-package snapshot: left-pad 1.3.0 (MAL-2099-0001).",
      "Flagged by the malicious-package snapshot: lodash 4.17.20 (MAL-2099-0002).",
    ]);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await listOf(dev)).toHaveLength(2);
    expect(await listOf(viewer)).toHaveLength(0);
    expect(
      events.seen.filter((r) => r.type === MaliciousComponentsFlaggedSchema.typeName && r.key === projectId),
    ).toHaveLength(3); // the two published, and the redelivery
  }, 120_000);
});
