// Component states through the real servers: the scanner-runner's end-of-life, currency and malicious states
// recorded through ComponentStateService (as the runner calls it), then read by the component list's filters, the
// detail and the overview; only the runner may record them, and bad input names its field.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { ComponentStateService } from "@sca/proto/sca/projects/v1/component_states_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { callAs, ingestArtefact, type CallOptions } from "@sca/testkit";
import { findingsArtefact, PURLS } from "./support/findings-fixture.ts";
import { startProjects, type ProjectsHarness, type TeamFixture } from "./support/projects-harness.ts";

let h: ProjectsHarness;
let dir: string;
let store: DirectoryArtefactStore;
let inventory: Client<typeof InventoryService>;
let states: Client<typeof ComponentStateService>;
let runner: CallOptions;
let team: TeamFixture;
let viewer: CallOptions;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-states-"));
  store = new DirectoryArtefactStore(dir);
  h = await startProjects({ ARTEFACT_DIR: dir });
  inventory = h.projects.client(InventoryService);
  states = h.projects.client(ComponentStateService);
  runner = await callAs.service("scanner-runner");
  team = await h.team();
  viewer = await h.as(randomUUID(), [[team, "viewer"]]);
}, 60_000);

afterAll(async () => {
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function ingested(): Promise<{ projectId: string; scanId: string }> {
  const slug = `s-${randomUUID().slice(0, 8)}`;
  const created = await h.client.createProject(
    { project: { name: `States ${slug}`, slug, teamId: team.id } },
    await h.superAdmin(),
  );
  const projectId = created.project!.id;
  const scanId = await ingestArtefact(inventory, store, projectId, findingsArtefact());
  return { projectId, scanId };
}

const STATES = [
  {
    purl: PURLS.log4j,
    eolState: "eol",
    eolCycle: "2",
    eolDate: "2015-10-01",
    eolProduct: "log4j",
    eolSource: "endoflife.date",
    currencyState: "outdated",
    currencyLatest: "2.25.1",
    currencyLatestReleaseDate: "2025-07-10",
    maliciousState: "clear",
  },
  { purl: PURLS.lodash, currencyState: "current", currencyLatest: "4.17.20", maliciousState: "clear" },
  {
    purl: PURLS.leftPad,
    currencyState: "unknown",
    maliciousState: "flagged",
    maliciousId: "MAL-2025-0001",
    maliciousSource: "ossf-malicious-packages",
  },
];

async function names(projectId: string, filter: Record<string, unknown>): Promise<string[]> {
  const page = await inventory.listComponents({ projectId, limit: 50, filter }, viewer);
  return page.items.map((c) => c.name).sort();
}

async function code(call: Promise<unknown>): Promise<Code | undefined> {
  try {
    await call;
    return undefined;
  } catch (err) {
    return ConnectError.from(err).code;
  }
}

describe("RecordComponentStates", () => {
  it("writes each purl's states on its rows in one call; the filters, the detail and the overview read them", async () => {
    const { projectId, scanId } = await ingested();
    const r = await states.recordComponentStates({ projectId, scanId, states: STATES }, runner);
    expect(r.updated).toBe(3);
    // A repeat changes nothing.
    expect((await states.recordComponentStates({ projectId, scanId, states: STATES }, runner)).updated).toBe(0);

    expect(await names(projectId, { eol: true })).toEqual(["log4j-core"]);
    expect(await names(projectId, { eol: false })).toHaveLength(5);
    expect(await names(projectId, { outdated: true })).toEqual(["log4j-core"]);
    // current, unknown and never assessed are not outdated.
    expect(await names(projectId, { outdated: false })).toHaveLength(5);
    expect(await names(projectId, { malicious: true })).toEqual(["left-pad"]);
    // false includes the never-assessed ones.
    expect(await names(projectId, { malicious: false })).toHaveLength(5);

    const list = await inventory.listComponents({ projectId, limit: 50 }, viewer);
    const log4j = list.items.find((c) => c.name === "log4j-core")!;
    const detail = await inventory.getComponent({ projectId, componentId: log4j.componentId }, viewer);
    expect(detail.component).toMatchObject({
      eolState: "eol",
      eolCycle: "2",
      eolDate: "2015-10-01",
      eolProduct: "log4j",
      eolSource: "endoflife.date",
      currencyState: "outdated",
      currencyLatest: "2.25.1",
      currencyLatestReleaseDate: "2025-07-10",
      maliciousState: "clear",
    });
    const unassessed = list.items.find((c) => c.purl === PURLS.unassessed)!;
    expect(unassessed.maliciousState).toBeUndefined();
    expect(unassessed.eolState).toBeUndefined();
    expect(unassessed.currencyState).toBeUndefined();

    const { overview } = await h.projects.client(ProjectService).getProjectOverview({ projectId }, viewer);
    expect(overview).toMatchObject({ eolCount: 1, outdatedCount: 1, maliciousCount: 1 });
    // 100 - 3 (eol) - 100 (malicious), at least 0.
    expect(overview!.securityScore).toBe(0);
    expect(overview!.riskScore).toBe(100);
  });

  it("is the scanner-runner's alone, names bad fields, and refuses a scan not ingested for the project", async () => {
    const { projectId, scanId } = await ingested();
    expect(await code(states.recordComponentStates({ projectId, scanId, states: STATES }, viewer))).toBe(
      Code.PermissionDenied,
    );
    expect(await code(states.recordComponentStates({ projectId, scanId, states: STATES }, await h.superAdmin()))).toBe(
      Code.PermissionDenied,
    );
    try {
      await states.recordComponentStates(
        {
          projectId,
          scanId,
          states: [
            { purl: PURLS.lodash, eolState: "dead", eolDate: "2024-13-45" },
            { purl: PURLS.lodash, currencyState: "current" },
          ],
        },
        runner,
      );
      throw new Error("accepted");
    } catch (err) {
      const e = ConnectError.from(err);
      expect(e.code).toBe(Code.InvalidArgument);
      expect(e.rawMessage).toMatch(/eol_state/);
    }
    expect(await code(states.recordComponentStates({ projectId, scanId: randomUUID(), states: STATES }, runner))).toBe(
      Code.NotFound,
    );
    const other = await ingested();
    expect(
      await code(states.recordComponentStates({ projectId: other.projectId, scanId, states: STATES }, runner)),
    ).toBe(Code.NotFound);
  });
});

describe("RestampComponentStates", () => {
  it("replaces only the named feed's columns, on every project's newest snapshot only", async () => {
    const a = await ingested();
    const b = await ingested();
    await states.recordComponentStates({ ...a, states: STATES }, runner);
    // b's project gets a newer snapshot: its first one is no longer re-stamped.
    const older = b.scanId;
    const newer = await ingestArtefact(inventory, store, b.projectId, findingsArtefact());
    const log4j = STATES.find((x) => x.purl === PURLS.log4j)!;
    const restamped = await states.restampComponentStates(
      { feeds: ["eol"], states: [{ purl: PURLS.log4j, eolState: "supported", eolProduct: "log4j", eolCycle: "2" }] },
      runner,
    );
    // a's log4j row leaves eol; b's newest snapshot gains a state; b's older snapshot is left (the other tests'
    // projects hold log4j too, hence at least).
    expect(restamped.updated).toBeGreaterThanOrEqual(2);
    expect(restamped.eolCleared).toBeGreaterThanOrEqual(1);
    expect(restamped.projectsTouched).toBeGreaterThanOrEqual(2);
    expect(restamped.newlyFlagged).toBe(0);
    const rowOf = async (scanId: string) =>
      (
        await h.projects.orm.em
          .getConnection()
          .execute<{ eol_state: string | null; eol_date: string | null; currency_state: string | null }[]>(
            `select eol_state, eol_date, currency_state from inventory_components where scan_id = ? and purl = ?`,
            [scanId, PURLS.log4j],
          )
      )[0]!;
    expect(await rowOf(a.scanId)).toEqual({
      eol_state: "supported",
      eol_date: null,
      currency_state: log4j.currencyState ?? null,
    });
    expect(await rowOf(newer)).toMatchObject({ eol_state: "supported" });
    expect(await rowOf(older)).toMatchObject({ eol_state: null });
    // Idempotent: the same states again change nothing.
    expect(
      await states.restampComponentStates(
        { feeds: ["eol"], states: [{ purl: PURLS.log4j, eolState: "supported", eolProduct: "log4j", eolCycle: "2" }] },
        runner,
      ),
    ).toMatchObject({ updated: 0, eolCleared: 0 });
    const counts = await states.countComponentStates({}, runner);
    expect(counts.eolStamped).toBeGreaterThanOrEqual(2);
  });

  it("is the scanner-runner's alone and names a feed it does not know", async () => {
    const request = { feeds: ["eol"], states: [{ purl: PURLS.log4j }] };
    expect(await code(states.restampComponentStates(request, viewer))).toBe(Code.PermissionDenied);
    expect(await code(states.countComponentStates({}, await h.superAdmin()))).toBe(Code.PermissionDenied);
    try {
      await states.restampComponentStates({ feeds: ["currency"], states: [{ purl: PURLS.log4j }] }, runner);
      throw new Error("accepted");
    } catch (err) {
      const e = ConnectError.from(err);
      expect(e.code).toBe(Code.InvalidArgument);
      expect(e.rawMessage).toMatch(/feeds/);
    }
    expect(await code(states.restampComponentStates({ feeds: [], states: [] }, runner))).toBe(Code.InvalidArgument);
  });
});
