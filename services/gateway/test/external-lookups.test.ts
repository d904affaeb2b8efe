// GET /v1/external-packages and /v1/external-advisories/{id} through a real gateway, identity, projects and
// scanner-runner: the advisories come from the runner's database (the vendored OSV snapshot), whether or not a
// project holds the package; the projects holding it (projects' fixture inventory, lodash 4.17.20 among it) only for
// callers who may read them.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { VulnerabilityMatchService } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import { callAs, fixturesOf, ingestArtefact, startService, type TestService } from "@sca/testkit";
import { startProjectsStack, type ProjectsStack } from "./projects-stack.ts";

/** npm lodash in the vendored snapshot: its six advisories (grep -l '"lodash"' data/osv/npm/*.json), by vulnerability. */
const LODASH = ["CVE-2018-16487", "CVE-2018-3721", "CVE-2019-10744", "CVE-2020-8203", "CVE-2021-23337", "NSWG-ECO-516"];

let runner: TestService;
let s: ProjectsStack;
let dir: string;
let viewer: string;
let outsider: string;
let projectId: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-gw-lookups-"));
  // The runner as the test kit's template imported it: no feed refresh, so nothing leaves the machine.
  runner = await startService("scanner-runner", {
    env: {
      KEV_REFRESH_ENABLED: "false",
      EPSS_REFRESH_ENABLED: "false",
      EOL_REFRESH_ENABLED: "false",
      MALICIOUS_REFRESH_ENABLED: "false",
      TASK_WORKER_CONCURRENCY: "1",
      TASK_WORKER_AUTOMATIC_CONCURRENCY: "0",
    },
  });
  s = await startProjectsStack({ ARTEFACT_DIR: dir, SCANNER_RUNNER_RPC_URL: runner.url! });
  const team = await s.team();
  viewer = (await s.person([[team.id, "viewer"]])).token;
  outsider = (await s.person([[(await s.team()).id, "team_admin"]])).token;
  const created = await s.request("POST", "/v1/projects", {
    bearer: await s.superAdminToken(),
    body: { name: "Lookups", slug: `lookups-${randomUUID().slice(0, 6)}`, team_id: team.id },
  });
  projectId = created.json.id as string;
  const fixtures = await fixturesOf("projects");
  const caller = await callAs.service("scanner-runner");
  const scanId = await ingestArtefact(
    s.projects.client(InventoryService),
    new DirectoryArtefactStore(dir),
    projectId,
    fixtures.findingsArtefact(),
    { caller },
  );
  await s.projects.client(VulnerabilityMatchService).recordScanMatches(fixtures.scanMatches(projectId, scanId), caller);
}, 120_000);

afterAll(async () => {
  await s?.close();
  await runner?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe("GET /v1/external-packages", () => {
  it("answers the advisory database's vulnerabilities and the readable projects holding the package", async () => {
    const pkg = await s.request("GET", "/v1/external-packages?ecosystem=npm&name=lodash", { bearer: viewer });
    expect(pkg.status).toBe(200);
    expect(pkg.json).toMatchObject({ found: true, ecosystem: "npm", name: "lodash", purl: "pkg:npm/lodash" });
    // The fixture's scan recorded CVE-2020-28500 for lodash; the database holds no such advisory.
    expect(pkg.json).toMatchObject({ advisory_ids: LODASH, advisory_count: 6, version: "4.17.20" });
    expect(pkg.json.internal_projects).toEqual(
      expect.arrayContaining([expect.objectContaining({ project_id: projectId, versions: ["4.17.20"] })]),
    );
    const hidden = await s.request("GET", "/v1/external-packages?ecosystem=npm&name=lodash", { bearer: outsider });
    expect((hidden.json.internal_projects as { project_id: string }[]).map((p) => p.project_id)).not.toContain(
      projectId,
    );
    expect((await s.request("GET", "/v1/external-packages?ecosystem=cobol&name=x", { bearer: viewer })).status).toBe(
      422,
    );
  });

  it("answers a package no project holds", async () => {
    const r = await s.request("GET", "/v1/external-packages?ecosystem=cargo&name=hyper", { bearer: viewer });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      found: true,
      ecosystem: "cargo",
      purl: "pkg:cargo/hyper",
      internal_projects: [],
      licenses: [],
      version: null,
      homepage_url: null,
      source_repo_url: null,
    });
    expect(r.json.advisory_count).toBe((r.json.advisory_ids as string[]).length);
    expect(r.json.advisory_count).toBeGreaterThan(0);
  });
});

describe("GET /v1/external-advisories/{advisory_id}", () => {
  it("finds an advisory by its id or any alias, ignoring case", async () => {
    const advisory = await s.request("GET", "/v1/external-advisories/CVE-2021-44228", { bearer: viewer });
    expect(advisory.json).toMatchObject({
      found: true,
      advisory_id: "CVE-2021-44228",
      aliases: ["GHSA-jfh8-c2jp-5v3q"],
      cvss3_score: 10,
      cvss3_vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H",
      title: "Remote code injection in Log4j",
    });
    const byAlias = await s.request("GET", "/v1/external-advisories/ghsa-jfh8-c2jp-5v3q", { bearer: viewer });
    expect(byAlias.json).toMatchObject({
      found: true,
      advisory_id: "GHSA-jfh8-c2jp-5v3q",
      aliases: ["CVE-2021-44228"],
      cvss3_score: 10,
      title: "Remote code injection in Log4j",
    });
    const unknown = await s.request("GET", "/v1/external-advisories/CVE-1999-0001", { bearer: viewer });
    expect(unknown.json).toMatchObject({
      found: false,
      advisory_id: "CVE-1999-0001",
      aliases: [],
      cvss3_score: null,
      title: null,
    });
  });
});
