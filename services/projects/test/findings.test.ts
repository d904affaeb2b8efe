// Vulnerability findings through the real servers: the scanner-runner's verdicts recorded through
// VulnerabilityMatchService (as the runner calls it), then read, triaged, re-matched, exported as VEX (checked
// against the official OpenVEX and CycloneDX schemas) and imported from every real VEX document of
// the shared data set (data/vex). The lookups by package and advisory id: external-lookups.test.ts.
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { VulnerabilitiesKevListedSchema } from "@sca/proto/sca/events/v1/kev_listings_pb.ts";
import { FindingsChangedSchema } from "@sca/proto/sca/events/v1/projects_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import {
  VulnerabilityFindingService,
  type VulnerabilityFinding,
} from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import { VulnerabilityMatchService } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import { callAs, ingestArtefact, sharedDir, type CallOptions } from "@sca/testkit";
import { findingsArtefact, PURLS, scanMatches, VULNS } from "./support/findings-fixture.ts";
import { startProjects, type ProjectsHarness, type TeamFixture } from "./support/projects-harness.ts";
import { cyclonedxJsonErrors } from "./support/sbom-validators.ts";

const VEX_DIR = join(sharedDir(), "data", "vex");

let h: ProjectsHarness;
let dir: string;
let store: DirectoryArtefactStore;
let inventory: Client<typeof InventoryService>;
let matches: Client<typeof VulnerabilityMatchService>;
let findings: Client<typeof VulnerabilityFindingService>;
let runner: CallOptions;
let team: TeamFixture;
let viewer: CallOptions;
let developer: CallOptions;
let admin: CallOptions;
let outsider: CallOptions;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-findings-"));
  store = new DirectoryArtefactStore(dir);
  h = await startProjects({ ARTEFACT_DIR: dir });
  inventory = h.projects.client(InventoryService);
  matches = h.projects.client(VulnerabilityMatchService);
  findings = h.projects.client(VulnerabilityFindingService);
  runner = await callAs.service("scanner-runner");
  team = await h.team();
  const other = await h.team();
  viewer = await h.as(randomUUID(), [[team, "viewer"]]);
  developer = await h.as(randomUUID(), [[team, "developer"]]);
  admin = await h.as(randomUUID(), [[team, "team_admin"]]);
  outsider = await h.as(randomUUID(), [[other, "team_admin"]]);
}, 60_000);

afterAll(async () => {
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Every project this file made: the KEV count spans them all. */
const madeProjects: string[] = [];

async function newProject(): Promise<string> {
  const slug = `f-${randomUUID().slice(0, 8)}`;
  const created = await h.client.createProject(
    { project: { name: `Findings ${slug}`, slug, teamId: team.id } },
    await h.superAdmin(),
  );
  madeProjects.push(created.project!.id);
  return created.project!.id;
}

/** Ingests the fixture's inventory as a new scan and records its verdicts; answers the scan id. */
async function scanned(projectId: string, databaseVersion = "db-1"): Promise<string> {
  const scanId = await ingestArtefact(inventory, store, projectId, findingsArtefact());
  const r = await matches.recordScanMatches(scanMatches(projectId, scanId, databaseVersion), runner);
  expect(r.findingCount).toBe(5);
  return scanId;
}

async function allFindings(projectId: string, scanId?: string): Promise<VulnerabilityFinding[]> {
  return (await findings.listVulnerabilityFindings({ projectId, anchor: { scanId }, limit: 500 }, viewer)).items;
}

const byVulnerability = (items: VulnerabilityFinding[], id: string) => items.find((f) => f.vulnerabilityId === id)!;

async function connectCode(call: Promise<unknown>): Promise<Code | undefined> {
  try {
    await call;
    return undefined;
  } catch (err) {
    return ConnectError.from(err).code;
  }
}

describe("RecordScanMatches", () => {
  it("turns verdicts into one finding per component and vulnerability, once, and sets severity_max", async () => {
    const projectId = await newProject();
    const scanId = await scanned(projectId);
    // Idempotent per (scan, database version): the same answer, nothing doubled.
    const again = await matches.recordScanMatches(scanMatches(projectId, scanId), runner);
    expect(again.findingCount).toBe(5);
    const items = await allFindings(projectId);
    expect(items.map((f) => f.vulnerabilityId).sort()).toEqual(Object.keys(VULNS).sort());
    const log4shell = byVulnerability(items, "CVE-2021-44228");
    expect(log4shell).toMatchObject({
      componentName: "log4j-core",
      purl: PURLS.log4j,
      ecosystem: "Maven",
      severity: "critical",
      cvssScore: 10,
      knownExploited: true,
      kevDueDate: "2021-12-24",
      epssScore: 0.97,
      fixedVersions: ["2.15.0"],
      status: "in_triage",
      version: 1,
      scanId,
    });
    const components = await inventory.listComponents({ projectId, limit: 50 }, viewer);
    const severityOf = Object.fromEntries(components.items.map((c) => [c.name, c.severityMax ?? null]));
    expect(severityOf).toEqual({
      "jackson-databind": "high",
      git: "medium",
      lodash: "high",
      "log4j-core": "critical",
      "left-pad": null,
      tool: null,
    });
    const filtered = await inventory.listComponents({ projectId, filter: { severity: ["high"] }, limit: 50 }, viewer);
    expect(filtered.items.map((c) => c.name).sort()).toEqual(["jackson-databind", "lodash"]);
    const project = await h.client.getProject({ projectId }, viewer);
    expect(project.project!.severitySummary).toEqual({ critical: 1, high: 2, medium: 1 });
  });

  it("is for the scanner-runner only, and needs an ingested scan of the project", async () => {
    const projectId = await newProject();
    const scanId = randomUUID();
    expect(await connectCode(matches.recordScanMatches(scanMatches(projectId, scanId), admin))).toBe(
      Code.PermissionDenied,
    );
    expect(
      await connectCode(matches.recordScanMatches(scanMatches(projectId, scanId), await callAs.service("gateway"))),
    ).toBe(Code.PermissionDenied);
    expect(await connectCode(matches.recordScanMatches(scanMatches(projectId, scanId), runner))).toBe(Code.NotFound);
    const bad = scanMatches(projectId, scanId);
    bad.vulnerabilities = [];
    expect(await connectCode(matches.recordScanMatches(bad, runner))).toBe(Code.InvalidArgument);
  });

  it("takes a scan's advisories before its inventory is ingested, then its findings from the verdicts alone", async () => {
    const projectId = await newProject();
    // A vulnerability of this test's own, on lodash beside the fixture's two.
    const ahead = `GHSA-ahead-${randomUUID().slice(0, 8)}`;
    const all = scanMatches(projectId, randomUUID(), "db-ahead");
    const vulnerabilities = [...all.vulnerabilities!, { id: ahead, summary: "Recorded ahead", severity: "low" }];
    const verdicts = all.verdicts!.map((v) => ({
      package: v.package,
      vulnerabilities: [
        ...(v.vulnerabilities ?? []),
        ...(v.package?.name === "lodash" ? [{ vulnerabilityId: ahead, fixedVersions: ["5.0.0"] }] : []),
      ],
    }));
    const advisories = { databaseVersion: "db-ahead", vulnerabilities, verdicts };
    expect(await connectCode(matches.recordScanAdvisories(advisories, admin))).toBe(Code.PermissionDenied);
    expect(await connectCode(matches.recordScanAdvisories({ ...advisories, vulnerabilities: [] }, runner))).toBe(
      Code.InvalidArgument,
    );
    // No snapshot is needed yet.
    await matches.recordScanAdvisories(advisories, runner);
    const scanId = await ingestArtefact(inventory, store, projectId, findingsArtefact());
    const recorded = await matches.recordScanMatches(
      { projectId, scanId, databaseVersion: "db-ahead", verdicts, advisoriesRecorded: true },
      runner,
    );
    expect(recorded.findingCount).toBe(6);
    expect(byVulnerability(await allFindings(projectId), ahead)).toMatchObject({
      componentName: "lodash",
      severity: "low",
      fixedVersions: ["5.0.0"],
    });
    const lodash = (await inventory.listComponents({ projectId, limit: 50 }, viewer)).items.find(
      (c) => c.name === "lodash",
    );
    expect(lodash?.severityMax).toBe("high");
  });
});

describe("the findings list", () => {
  let projectId: string;
  beforeAll(async () => {
    projectId = await newProject();
    await scanned(projectId);
  });
  const list = (req: Parameters<typeof findings.listVulnerabilityFindings>[0], as: CallOptions = viewer) =>
    findings.listVulnerabilityFindings({ projectId, limit: 50, ...req }, as);

  it("sorts most severe first by default, then by EPSS; sort fields with - descending; pages", async () => {
    const all = await list({});
    expect(all.total).toBe(5);
    expect(all.items.map((f) => f.vulnerabilityId)).toEqual([
      "CVE-2021-44228",
      "CVE-2021-23337",
      "CVE-2020-25649",
      "CVE-2014-123456",
      "CVE-2020-28500",
    ]);
    const byCvss = await list({ sort: "cvss" });
    expect(byCvss.items.map((f) => f.cvssScore)).toEqual([5, 5.3, 7.2, 7.5, 10]);
    const byComponent = await list({ sort: "-component,vulnerability" });
    expect(byComponent.items.map((f) => f.componentName)).toEqual([
      "log4j-core",
      "lodash",
      "lodash",
      "jackson-databind",
      "git",
    ]);
    const page = await list({ limit: 2, offset: 4 });
    expect(page.total).toBe(5);
    expect(page.items.map((f) => f.vulnerabilityId)).toEqual(["CVE-2020-28500"]);
    const past = await list({ limit: 2, offset: 10 });
    expect({ total: past.total, items: past.items.length }).toEqual({ total: 5, items: 0 });
  });

  it("filters by severity, status, KEV, EPSS, fix, component and search (ids and aliases)", async () => {
    const ids = async (filter: Parameters<typeof list>[0]["filter"]) =>
      (await list({ filter })).items.map((f) => f.vulnerabilityId).sort();
    expect(await ids({ severity: ["high"] })).toEqual(["CVE-2020-25649", "CVE-2021-23337"]);
    expect(await ids({ knownExploited: true })).toEqual(["CVE-2021-44228"]);
    expect(await ids({ epssMin: 0.02 })).toEqual(["CVE-2021-23337", "CVE-2021-44228"]);
    expect(await ids({ hasFix: false })).toEqual(["CVE-2014-123456"]);
    expect(await ids({ search: "ghsa-35JH" })).toEqual(["CVE-2021-23337"]);
    expect(await ids({ search: "lodash" })).toEqual(["CVE-2020-28500", "CVE-2021-23337"]);
    expect(await ids({ status: ["exploitable"] })).toEqual([]);
    expect(await ids({ status: ["in_triage"] })).toHaveLength(5);
    expect(await connectCode(list({ filter: { severity: ["catastrophic"] } }))).toBe(Code.InvalidArgument);
    expect(await connectCode(list({ sort: "colour" }))).toBe(Code.InvalidArgument);
    expect(await connectCode(list({ limit: 501 }))).toBe(Code.InvalidArgument);
    // A project the caller may not read is hidden.
    expect(await connectCode(list({}, outsider))).toBe(Code.NotFound);
  });
});

describe("the findings list's kept orders", () => {
  const ids = async (projectId: string, req: Parameters<typeof findings.listVulnerabilityFindings>[0] = {}) => {
    const page = await findings.listVulnerabilityFindings({ projectId, limit: 50, ...req }, viewer);
    return { total: page.total, ids: page.items.map((f) => f.vulnerabilityId) };
  };
  const lastChange = async () => {
    const [row] = await h.projects.orm.em
      .fork()
      .getConnection()
      .execute<{ n: string }[]>("select coalesce(max(id), 0) as n from finding_changes");
    return Number(row!.n);
  };

  it("answers every committed write to findings, triage and vulnerabilities in the very next list", async () => {
    const projectId = await newProject();
    const scanId = await scanned(projectId);
    const byEpss = ["CVE-2021-44228", "CVE-2021-23337", "CVE-2020-25649", "CVE-2014-123456", "CVE-2020-28500"];
    expect(await ids(projectId, { sort: "-epss" })).toEqual({ total: 5, ids: byEpss });
    // Pages of one kept order, the anchored list alike.
    expect(await ids(projectId, { sort: "-epss", limit: 2, offset: 1 })).toEqual({ total: 5, ids: byEpss.slice(1, 3) });
    expect(await ids(projectId, { sort: "-epss", offset: 3, anchor: { scanId } })).toEqual({
      total: 5,
      ids: byEpss.slice(3),
    });

    // The vulnerabilities' scores.
    await matches.recordVulnerabilityUpdates(
      { vulnerabilities: [{ id: "CVE-2020-28500", severity: "medium", epssScore: 0.5, epssPercentile: 0.9 }] },
      runner,
    );
    expect((await ids(projectId, { sort: "-epss", limit: 2 })).ids).toEqual(["CVE-2021-44228", "CVE-2020-28500"]);
    expect((await ids(projectId, { sort: "-epss", anchor: { scanId } })).ids[1]).toBe("CVE-2020-28500");

    // The project's triage.
    expect(await ids(projectId, { filter: { status: ["exploitable"] } })).toEqual({ total: 0, ids: [] });
    const lodash = (await findings.listVulnerabilityFindings({ projectId, limit: 50 }, viewer)).items.find(
      (f) => f.vulnerabilityId === "CVE-2021-23337",
    )!;
    await findings.updateFindingStatus(
      { findingId: lodash.id, expectedVersion: 1, status: "exploitable", responses: [] },
      developer,
    );
    expect(await ids(projectId, { filter: { status: ["exploitable"] } })).toEqual({
      total: 1,
      ids: ["CVE-2021-23337"],
    });

    // The snapshot's findings: a new database version without one of them.
    const all = scanMatches(projectId, scanId, "db-2");
    const verdicts = all.verdicts as { package: unknown; vulnerabilities: { vulnerabilityId: string }[] }[];
    await matches.recordScanMatches(
      {
        ...all,
        verdicts: verdicts.map((v) => ({
          ...v,
          vulnerabilities: v.vulnerabilities.filter((x) => x.vulnerabilityId !== "CVE-2021-44228"),
        })),
      } as typeof all,
      runner,
    );
    // The same statement upserted the fixture's vulnerabilities again: CVE-2020-28500 is unscored once more.
    expect(await ids(projectId, { sort: "-epss", limit: 1 })).toEqual({ total: 4, ids: ["CVE-2021-23337"] });
  });

  it("counts no write when the vulnerabilities a scan upserts are unchanged", async () => {
    const projectId = await newProject();
    await scanned(projectId);
    const before = await lastChange();
    // A second snapshot of another project with the same verdicts: its own findings and triage count, nothing else.
    const other = await newProject();
    const otherScan = await scanned(other);
    const [row] = await h.projects.orm.em
      .fork()
      .getConnection()
      .execute<{ everywhere: string; mine: string }[]>(
        `select count(*) filter (where id > ? and scan_id is null and project_id is null) as everywhere,
                count(*) filter (where id > ? and (scan_id = ? or project_id = ?)) as mine from finding_changes`,
        [before, before, otherScan, other],
      );
    expect(Number(row!.everywhere)).toBe(0);
    expect(Number(row!.mine)).toBeGreaterThan(0);
  });
});

describe("triage", () => {
  it("changes the status under the version check, by developers, along the allowed moves, audited", async () => {
    const projectId = await newProject();
    await scanned(projectId);
    const f = byVulnerability(await allFindings(projectId), "CVE-2021-23337");
    const update = (
      req: { expectedVersion: number; status: string; justification?: string; responses?: string[]; detail?: string },
      as = developer,
    ) => findings.updateFindingStatus({ findingId: f.id, responses: [], ...req }, as);

    expect(await connectCode(update({ expectedVersion: 1, status: "exploitable" }, viewer))).toBe(
      Code.PermissionDenied,
    );
    expect(await connectCode(update({ expectedVersion: 1, status: "exploitable" }, outsider))).toBe(Code.NotFound);
    expect(await connectCode(update({ expectedVersion: 1, status: "not_affected" }))).toBe(Code.InvalidArgument);
    expect(
      await connectCode(update({ expectedVersion: 1, status: "exploitable", justification: "code_not_present" })),
    ).toBe(Code.InvalidArgument);

    const stale = await update({ expectedVersion: 7, status: "exploitable" }).catch((e: unknown) =>
      ConnectError.from(e),
    );
    expect(stale).toBeInstanceOf(ConnectError);
    expect((stale as ConnectError).code).toBe(Code.FailedPrecondition);
    expect((stale as ConnectError).message).toContain("version 1");

    const changed = await update({
      expectedVersion: 1,
      status: "not_affected",
      justification: "code_not_reachable",
      responses: ["will_not_fix"],
      detail: "template() is never called with user input",
    });
    expect(changed.finding).toMatchObject({
      status: "not_affected",
      justification: "code_not_reachable",
      responses: ["will_not_fix"],
      version: 2,
    });
    const [audit] = await h.auditEvents.waitFor(
      (await import("@sca/proto/sca/events/v1/audit_pb.ts")).AuditEventSchema,
      (e) => e.action === "vulnerability_finding.status_changed" && e.targetId === f.id,
    );
    expect(audit!.details).toMatchObject({ from: "in_triage", to: "not_affected", version: "2" });
    // A closing state is left through in_triage or exploitable, never straight to another closing state.
    expect(await connectCode(update({ expectedVersion: 2, status: "resolved" }))).toBe(Code.AlreadyExists);
    const reopened = await update({ expectedVersion: 2, status: "exploitable" });
    expect(reopened.finding!.version).toBe(3);
    // The same triage again is no change: no new version.
    const same = await update({ expectedVersion: 3, status: "exploitable" });
    expect(same.finding!.version).toBe(3);
  });

  it("survives a rescan and re-matching of the same component", async () => {
    const projectId = await newProject();
    await scanned(projectId);
    const f = byVulnerability(await allFindings(projectId), "CVE-2021-44228");
    await findings.updateFindingStatus(
      { findingId: f.id, expectedVersion: 1, status: "exploitable", responses: ["update"], detail: "patching" },
      developer,
    );
    const next = await scanned(projectId, "db-2");
    const g = byVulnerability(await allFindings(projectId, next), "CVE-2021-44228");
    expect(g.id).not.toBe(f.id);
    expect(g).toMatchObject({ status: "exploitable", responses: ["update"], detail: "patching", version: 2 });
    expect(g.firstDetectedAt).toEqual(f.firstDetectedAt);
  });
});

describe("re-matching after an advisory refresh", () => {
  it("dates findings that leave and arrive in newest snapshots, publishes one FindingsChanged per project", async () => {
    const projectId = await newProject();
    const old = await scanned(projectId);
    const scanId = await scanned(projectId);
    const heldNames = new Set<string>();
    for await (const chunk of matches.listHeldVersions(
      {
        packages: [
          { ecosystem: "npm", name: "lodash" },
          { ecosystem: "npm", name: "left-pad" },
        ],
      },
      runner,
    ))
      for (const v of chunk.versions) heldNames.add(`${v.name}@${v.version}`);
    expect([...heldNames].sort()).toEqual(expect.arrayContaining(["left-pad@1.3.0", "lodash@4.17.20"]));

    const fresh = { id: `CVE-2099-${Math.floor(Math.random() * 90000) + 10000}`, severity: "low", summary: "new" };
    const r = await matches.recordRefreshMatches(
      {
        databaseVersion: "db-3",
        vulnerabilities: [VULNS["CVE-2021-23337"]!, fresh],
        verdicts: [
          {
            package: { ecosystem: "npm", name: "lodash", version: "4.17.20" },
            vulnerabilities: [{ vulnerabilityId: "CVE-2021-23337", fixedVersions: ["4.17.21"] }],
          },
          {
            package: { ecosystem: "npm", name: "left-pad", version: "1.3.0" },
            vulnerabilities: [{ vulnerabilityId: fresh.id, fixedVersions: [] }],
          },
        ],
      },
      runner,
    );
    expect(r.findingsAdded).toBeGreaterThanOrEqual(1);
    expect(r.findingsRemoved).toBeGreaterThanOrEqual(1);
    const [event] = await h.domainEvents.waitFor(FindingsChangedSchema, (e) => e.projectId === projectId);
    expect(event).toMatchObject({ scanId, teamId: team.id, databaseVersion: "db-3", addedCount: 1, removedCount: 1 });
    expect(event!.added.map((a) => [a.vulnerabilityId, a.componentName, a.severity])).toEqual([
      [fresh.id, "left-pad", "low"],
    ]);
    expect(event!.removed.map((a) => [a.vulnerabilityId, a.purl])).toEqual([["CVE-2020-28500", PURLS.lodash]]);
    const now = await allFindings(projectId);
    expect(now.map((f) => f.vulnerabilityId)).toContain(fresh.id);
    expect(now.map((f) => f.vulnerabilityId)).not.toContain("CVE-2020-28500");
    expect(byVulnerability(now, fresh.id).status).toBe("in_triage");
    // Only the newest snapshot is re-matched: the older scan keeps its findings.
    expect((await allFindings(projectId, old)).map((f) => f.vulnerabilityId)).toContain("CVE-2020-28500");
    const components = await inventory.listComponents({ projectId, limit: 50 }, viewer);
    expect(components.items.find((c) => c.name === "left-pad")!.severityMax).toBe("low");
  });

  it("RecordVulnerabilityUpdates replaces EPSS and KEV by id or alias", async () => {
    const projectId = await newProject();
    await scanned(projectId);
    const r = await matches.recordVulnerabilityUpdates(
      {
        vulnerabilities: [
          {
            id: "GHSA-288c-cq4h-88gq",
            severity: "high",
            epssScore: 0.5,
            epssPercentile: 0.9,
            knownExploited: true,
            kevDueDate: "2026-01-01",
          },
        ],
      },
      runner,
    );
    expect(r.updated).toBe(1);
    const f = byVulnerability(await allFindings(projectId), "CVE-2020-25649");
    expect(f).toMatchObject({ epssScore: 0.5, epssPercentile: 0.9, knownExploited: true, kevDueDate: "2026-01-01" });
  });

  it("publishes one VulnerabilitiesKevListed per project for open findings newly KEV-listed, never again", async () => {
    const projectId = await newProject();
    const scanId = await scanned(projectId);
    // Two vulnerabilities of this run only, reaching left-pad through a re-match; one is then closed by triage.
    const n = Math.floor(Math.random() * 90000) + 10000;
    const open = { id: `CVE-2098-${n}`, severity: "high", summary: "listed, open" };
    const closed = { id: `CVE-2097-${n}`, severity: "low", summary: "listed, resolved" };
    await matches.recordRefreshMatches(
      {
        databaseVersion: `db-kev-${n}`,
        vulnerabilities: [open, closed],
        verdicts: [
          {
            package: { ecosystem: "npm", name: "left-pad", version: "1.3.0" },
            vulnerabilities: [
              { vulnerabilityId: open.id, fixedVersions: [] },
              { vulnerabilityId: closed.id, fixedVersions: [] },
            ],
          },
        ],
      },
      runner,
    );
    const resolved = byVulnerability(await allFindings(projectId), closed.id);
    await findings.updateFindingStatus(
      { findingId: resolved.id, expectedVersion: 1, status: "resolved", responses: [] },
      developer,
    );
    const listing = [
      { ...open, knownExploited: true, kevDueDate: "2026-12-01" },
      { ...closed, knownExploited: true, kevDueDate: "2026-12-02" },
    ];
    const listed = await matches.recordVulnerabilityUpdates({ vulnerabilities: listing }, runner);
    expect(listed.updated).toBe(2);
    // The KEV panel's count: the open findings on a listed vulnerability over every project's list, the resolved one
    // not among them.
    let openKev = 0;
    for (const id of madeProjects)
      openKev += (await allFindings(id)).filter(
        (f) => f.knownExploited && ["in_triage", "exploitable"].includes(f.status),
      ).length;
    expect(openKev).toBeGreaterThanOrEqual(1);
    expect(listed.knownExploitedFindings).toBe(BigInt(openKev));
    const [event] = await h.domainEvents.waitFor(VulnerabilitiesKevListedSchema, (e) => e.projectId === projectId);
    expect(event).toMatchObject({ teamId: team.id, scanId, listedCount: 1 });
    expect(event!.findings.map((x) => [x.vulnerabilityId, x.componentName, x.severity, x.kevDueDate])).toEqual([
      [open.id, "left-pad", "high", "2026-12-01"],
    ]);
    // The same listing again, or only a new EPSS score of a listed vulnerability: nothing more is published.
    await matches.recordVulnerabilityUpdates({ vulnerabilities: listing }, runner);
    const rescored = await matches.recordVulnerabilityUpdates(
      { vulnerabilities: [{ ...listing[0]!, epssScore: 0.77 }] },
      runner,
    );
    expect(rescored.knownExploitedFindings).toBe(BigInt(openKev));
    await new Promise((r) => setTimeout(r, 1_500));
    const kevEvents = h.domainEvents.seen.filter(
      (x) => x.type === VulnerabilitiesKevListedSchema.typeName && x.key === projectId,
    );
    expect(kevEvents).toHaveLength(1);
  });
});

describe("VEX", () => {
  // The OpenVEX project's own JSON schema (openvex/spec) under ajv with ajv-formats. Its `iri` format is RFC 3987's
  // absolute IRI: a scheme, ":", then no whitespace or characters IRIs exclude. (ajv-formats-draft2019's iri refuses
  // purls, the ids OpenVEX's own examples use: the real documents below would all fail it.)
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addFormat("iri", /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]+$/u);
  let validOpenVex: ReturnType<typeof ajv.compile>;
  beforeAll(async () => {
    const schema = JSON.parse(
      await readFile(join(VEX_DIR, "openvex", "schema", "openvex_json_schema.json"), "utf8"),
    ) as object;
    validOpenVex = ajv.compile(schema);
  });

  it("exports OpenVEX and CycloneDX documents valid against their schemas, built from the triage", async () => {
    const projectId = await newProject();
    await scanned(projectId);
    const items = await allFindings(projectId);
    const set = async (id: string, status: string, extra: { justification?: string; detail?: string } = {}) =>
      findings.updateFindingStatus(
        { findingId: byVulnerability(items, id).id, expectedVersion: 1, status, responses: [], ...extra },
        developer,
      );
    await set("CVE-2021-44228", "exploitable");
    await set("CVE-2021-23337", "not_affected", { justification: "code_not_present" });
    await set("CVE-2020-28500", "resolved");
    await set("CVE-2020-25649", "false_positive");

    const open = await findings.exportVex({ projectId, format: "openvex" }, viewer);
    const openDoc = JSON.parse(Buffer.from(open.document).toString("utf8")) as {
      statements: {
        vulnerability: { name: string };
        status: string;
        justification?: string;
        products: { "@id": string }[];
      }[];
    };
    expect(validOpenVex(openDoc) ? null : validOpenVex.errors).toBeNull();
    // The same validator accepts the OpenVEX project's own 0.2.0 example.
    const demo = JSON.parse(await readFile(join(VEX_DIR, "openvex", "vexctl-demo.vex.json"), "utf8")) as object;
    expect(validOpenVex(demo) ? null : validOpenVex.errors).toBeNull();
    const st = Object.fromEntries(openDoc.statements.map((s) => [s.vulnerability.name, s]));
    expect(st["CVE-2021-44228"]).toMatchObject({ status: "affected", products: [{ "@id": PURLS.log4j }] });
    expect(st["CVE-2021-23337"]).toMatchObject({
      status: "not_affected",
      justification: "vulnerable_code_not_present",
    });
    expect(st["CVE-2020-28500"]!.status).toBe("fixed");
    expect(st["CVE-2014-123456"]!.status).toBe("under_investigation");

    const cdx = await findings.exportVex({ projectId, format: "cyclonedx" }, viewer);
    const cdxText = Buffer.from(cdx.document).toString("utf8");
    expect(await cyclonedxJsonErrors(cdxText)).toBeNull();
    const cdxDoc = JSON.parse(cdxText) as { vulnerabilities: { id: string; analysis: { state: string } }[] };
    expect(Object.fromEntries(cdxDoc.vulnerabilities.map((v) => [v.id, v.analysis.state]))).toMatchObject({
      "CVE-2021-44228": "exploitable",
      "CVE-2021-23337": "not_affected",
      "CVE-2020-25649": "false_positive",
    });
    expect(await connectCode(findings.exportVex({ projectId, format: "csaf" }, viewer))).toBe(Code.InvalidArgument);
    // The export of our document imports back onto another project with the same findings.
    const other = await newProject();
    await scanned(other);
    const back = await findings.importVex({ projectId: other, document: open.document }, admin);
    expect(back).toMatchObject({ format: "openvex", statements: 5, findingsUpdated: 4 });
    expect(byVulnerability(await allFindings(other), "CVE-2021-23337")).toMatchObject({
      status: "not_affected",
      justification: "code_not_present",
    });
  });

  it("imports every real VEX document, reporting what matched and what did not", async () => {
    const files: string[] = [];
    for (const kind of ["openvex", "cyclonedx"])
      for (const name of await readdir(join(VEX_DIR, kind)))
        if (name.endsWith(".json")) files.push(join(VEX_DIR, kind, name));
    expect(files.length).toBeGreaterThan(40);
    const projectId = await newProject();
    await scanned(projectId);
    const reports = new Map<string, Awaited<ReturnType<typeof findings.importVex>>>();
    for (const file of files) {
      const bytes = await readFile(file);
      const doc = JSON.parse(bytes.toString("utf8")) as { statements?: unknown[]; vulnerabilities?: unknown[] };
      const r = await findings.importVex({ projectId, document: bytes }, admin);
      reports.set(file.slice(VEX_DIR.length + 1), r);
      expect({ file, format: r.format, statements: r.statements }).toEqual({
        file,
        format: file.includes("/openvex/") ? "openvex" : "cyclonedx",
        statements: (doc.statements ?? doc.vulnerabilities ?? []).length,
      });
      for (const u of r.unmatched)
        expect(u.reason).toMatch(/^(no_finding|unresolved_product|no_product|unsupported_status)$/);
      for (const m of r.matched) expect(m.findingIds.length).toBeGreaterThan(0);
    }
    const items = await allFindings(projectId);
    // CycloneDX's vex.json: jackson-databind 2.10.0 (named by a BOM-link) is not affected by CVE-2020-25649.
    expect(byVulnerability(items, "CVE-2020-25649")).toMatchObject({
      status: "not_affected",
      justification: "code_not_reachable",
      responses: ["will_not_fix", "update"],
    });
    // vexctl's demo.vex.json names git as pkg:apk/distro/git: "distro" is no Alpine release the matcher knows, so no
    // finding can carry it (the project's git is pkg:apk/alpine/git) and the statement is reported, not applied.
    const vexctl = reports.get("openvex/vexctl-demo.vex.json")!;
    expect(vexctl.matched).toHaveLength(0);
    expect(vexctl.unmatched.map((u) => u.vulnerability)).toContain("CVE-2014-123456");
    expect(byVulnerability(items, "CVE-2014-123456").status).not.toBe("resolved");
    expect(byVulnerability(items, "CVE-2021-44228").status).toBe("in_triage");
  });

  it("refuses imports below team_admin and documents that are not VEX", async () => {
    const projectId = await newProject();
    const bytes = await readFile(join(VEX_DIR, "openvex", "vexctl-demo.vex.json"));
    expect(await connectCode(findings.importVex({ projectId, document: bytes }, developer))).toBe(
      Code.PermissionDenied,
    );
    expect(await connectCode(findings.importVex({ projectId, document: bytes }, outsider))).toBe(Code.NotFound);
    expect(
      await connectCode(findings.importVex({ projectId, document: Buffer.from('{"spdxVersion":"SPDX-2.3"}') }, admin)),
    ).toBe(Code.InvalidArgument);
  });
});
