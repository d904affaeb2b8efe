// The component list's kept pages through the real servers (docs/inventory.md, "Component pages kept"): a page of
// the newest snapshot is answered again from memory while the snapshot's count of writes is the same, and every
// writer's committed change is in the very next page, because the triggers on inventory_components count it.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Client } from "@connectrpc/connect";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { ComponentStateService } from "@sca/proto/sca/projects/v1/component_states_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { callAs, ingestArtefact, type CallOptions } from "@sca/testkit";
import { findingsArtefact, PURLS } from "./support/findings-fixture.ts";
import { startProjects, type ProjectsHarness, type TeamFixture } from "./support/projects-harness.ts";
import { fixtures as projectsFixtures } from "./fixtures.ts";

let h: ProjectsHarness;
let dir: string;
let store: DirectoryArtefactStore;
let inventory: Client<typeof InventoryService>;
let states: Client<typeof ComponentStateService>;
let runner: CallOptions;
let team: TeamFixture;
let viewer: CallOptions;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-pages-"));
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

const ingest = (projectId: string) => ingestArtefact(inventory, store, projectId, findingsArtefact());

async function newProject(): Promise<string> {
  const slug = `pages-${randomUUID().slice(0, 8)}`;
  const created = await h.client.createProject(
    { project: { name: `Pages ${slug}`, slug, teamId: team.id } },
    await h.superAdmin(),
  );
  return created.project!.id;
}

interface Row {
  name: string;
  scan_id: string;
  eol_state: string | null;
  malicious_state: string | null;
  license: string | null;
}

/** The list page as the gateway asks for it (rows as JSON), sorted by name. */
async function page(projectId: string, filter: Record<string, unknown> = {}): Promise<{ rows: Row[]; total: number }> {
  const answer = await inventory.listComponents({ projectId, limit: 50, filter, itemsAsJson: true }, viewer);
  return { rows: JSON.parse(Buffer.from(answer.itemsJson).toString("utf8")) as Row[], total: answer.total };
}

const sql = async <T = unknown>(text: string, params: unknown[] = []) =>
  (await projectsFixtures.write(h.projects.orm, text, params)) as T[];
const row = (rows: Row[], name: string) => rows.find((r) => r.name === name)!;

describe("kept component pages", () => {
  it("answers a page again until a write to the snapshot's components commits, then the written rows", async () => {
    const projectId = await newProject();
    const scanId = await ingest(projectId);
    const first = await page(projectId);
    expect(first.total).toBe(6);
    expect(row(first.rows, "log4j-core").eol_state).toBeNull();

    // Kept: a change that bypasses the count (the triggers off, as no writer can) is not seen...
    await sql("alter table inventory_components disable trigger user");
    try {
      await sql("update inventory_components set license = 'Unlicense' where scan_id = ? and name = 'lodash'", [
        scanId,
      ]);
    } finally {
      await sql("alter table inventory_components enable trigger user");
    }
    expect(row((await page(projectId)).rows, "lodash").license).toBe(row(first.rows, "lodash").license);
    // ...a filter is a page of its own, read now.
    expect((await page(projectId, { search: "lodash" })).rows.map((r) => r.license)).toEqual(["Unlicense"]);

    // A writer's change is in the next page, the moment its call has answered.
    const recorded = await states.recordComponentStates(
      {
        projectId,
        scanId,
        states: [
          { purl: PURLS.log4j, eolState: "eol", eolCycle: "2", maliciousState: "clear" },
          { purl: PURLS.leftPad, maliciousState: "flagged", maliciousId: "MAL-2025-0001", maliciousSource: "ossf" },
        ],
      },
      runner,
    );
    expect(recorded.updated).toBe(2);
    const after = await page(projectId);
    expect(row(after.rows, "log4j-core")).toMatchObject({ eol_state: "eol", malicious_state: "clear" });
    expect(row(after.rows, "left-pad").malicious_state).toBe("flagged");
    expect(row(after.rows, "lodash").license).toBe("Unlicense");
    expect((await page(projectId, { malicious: true })).rows.map((r) => r.name)).toEqual(["left-pad"]);

    // Every write counted, whoever wrote it: one row per writing statement (the ingestion's COPY, the states' update).
    const [counted] = await sql<{ changes: number }>(
      "select count(*)::int as changes from inventory_changes where scan_id = ?",
      [scanId],
    );
    expect(counted!.changes).toBeGreaterThanOrEqual(2);

    // A newer snapshot is the list's at once; its pages are its own.
    const second = await ingest(projectId);
    const newer = await page(projectId);
    expect(new Set(newer.rows.map((r) => r.scan_id))).toEqual(new Set([second]));
    expect(row(newer.rows, "log4j-core").eol_state).toBeNull();
  }, 60_000);

  it("forgets nothing a deleted row took with it: the delete is counted too", async () => {
    const projectId = await newProject();
    const scanId = await ingest(projectId);
    expect((await page(projectId, { search: "left" })).rows.map((r) => r.name)).toEqual(["left-pad"]);
    // No writer deletes single rows of a live snapshot; the trigger counts a delete all the same.
    await sql("delete from inventory_edges where scan_id = ?", [scanId]);
    await sql("delete from inventory_components where scan_id = ? and name = 'left-pad'", [scanId]);
    expect((await page(projectId, { search: "left" })).rows).toEqual([]);
  }, 60_000);
});
