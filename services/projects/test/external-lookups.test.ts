// The external lookups through the real servers: projects asking a real scanner-runner's advisory database (the
// vendored OSV snapshot, imported as every runner imports it) for packages and advisories no project holds, then a
// project holding one added with its license, only for callers who may read it; 404 when turned off, 503 when the
// runner cannot be reached (never an empty answer that would read as "no advisories").
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { sizeDelimitedEncode } from "@bufbuild/protobuf/wire";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { InventoryRecordSchema, InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { VulnerabilityFindingService } from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import { VulnerabilityMatchService } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import { callAs, ingestArtefact, startService, type CallOptions, type TestService } from "@sca/testkit";
import { service } from "../src/service.ts";
import { startProjects, type ProjectsHarness, type TeamFixture } from "./support/projects-harness.ts";

/** The runner as the template imported it: no feed refresh, so nothing leaves the machine. */
const RUNNER_ENV = {
  KEV_REFRESH_ENABLED: "false",
  EPSS_REFRESH_ENABLED: "false",
  EOL_REFRESH_ENABLED: "false",
  MALICIOUS_REFRESH_ENABLED: "false",
  TASK_WORKER_CONCURRENCY: "1",
  TASK_WORKER_AUTOMATIC_CONCURRENCY: "0",
};

/** npm lodash in the vendored snapshot: its six advisories (grep -l '"lodash"' data/osv/npm/*.json), by vulnerability. */
const LODASH = ["CVE-2018-16487", "CVE-2018-3721", "CVE-2019-10744", "CVE-2020-8203", "CVE-2021-23337", "NSWG-ECO-516"];

let runner: TestService;
let h: ProjectsHarness;
let dir: string;
let findings: Client<typeof VulnerabilityFindingService>;
let team: TeamFixture;
let viewer: CallOptions;
let outsider: CallOptions;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-lookups-"));
  runner = await startService("scanner-runner", { env: RUNNER_ENV });
  h = await startProjects({ ARTEFACT_DIR: dir, SCANNER_RUNNER_RPC_URL: runner.url! });
  findings = h.projects.client(VulnerabilityFindingService);
  team = await h.team();
  viewer = await h.as(randomUUID(), [[team, "viewer"]]);
  outsider = await h.as(randomUUID(), [[await h.team(), "team_admin"]]);
}, 120_000);

afterAll(async () => {
  await h?.close();
  await runner?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

async function connectCode(call: Promise<unknown>): Promise<Code | undefined> {
  try {
    await call;
    return undefined;
  } catch (err) {
    return ConnectError.from(err).code;
  }
}

const LODASH_PURL = "pkg:npm/lodash@4.17.20";
const record = (r: MessageInitShape<typeof InventoryRecordSchema>) =>
  sizeDelimitedEncode(InventoryRecordSchema, create(InventoryRecordSchema, r));

/**
 * A project of the viewer's team whose newest scan holds lodash 4.17.20 (MIT), with a verdict naming a
 * vulnerability the advisory database does not hold: the lookup must not answer what a scan recorded.
 */
async function projectHoldingLodash(): Promise<string> {
  const slug = `l-${randomUUID().slice(0, 8)}`;
  const { project } = await h.client.createProject(
    { project: { name: `Lookups ${slug}`, slug, teamId: team.id } },
    await h.superAdmin(),
  );
  const projectId = project!.id;
  const artefact = Buffer.concat([
    record({ record: { case: "document", value: { format: "cyclonedx-json", specVersion: "1.6" } } }),
    record({
      record: {
        case: "component",
        value: { key: LODASH_PURL, name: "lodash", version: "4.17.20", purl: LODASH_PURL, declaredLicense: "MIT" },
      },
    }),
  ]);
  const scanId = await ingestArtefact(
    h.projects.client(InventoryService),
    new DirectoryArtefactStore(dir),
    projectId,
    artefact,
  );
  await h.projects.client(VulnerabilityMatchService).recordScanMatches(
    {
      projectId,
      scanId,
      databaseVersion: "db-1",
      vulnerabilities: [{ id: "CVE-2099-0001", summary: "recorded by a scan only", severity: "medium" }],
      verdicts: [
        {
          package: { ecosystem: "npm", name: "lodash", version: "4.17.20" },
          vulnerabilities: [{ vulnerabilityId: "CVE-2099-0001", fixedVersions: [] }],
        },
      ],
    },
    await callAs.service("scanner-runner"),
  );
  return projectId;
}

describe("a package no project holds", () => {
  it("is answered from every advisory the runner imported", async () => {
    const lodash = await findings.lookupExternalPackage({ ecosystem: "npm", name: "lodash" }, viewer);
    expect(lodash).toMatchObject({
      found: true,
      ecosystem: "npm",
      name: "lodash",
      purl: "pkg:npm/lodash",
      advisoryIds: LODASH,
      internalProjects: [],
      licenses: [],
      version: "",
    });
    // Maven by group:artifact: Log4Shell is known through the alias of its GHSA record.
    const log4j = await findings.lookupExternalPackage(
      { ecosystem: "maven", name: "org.apache.logging.log4j:log4j-core" },
      viewer,
    );
    expect(log4j).toMatchObject({ found: true, purl: "pkg:maven/org.apache.logging.log4j/log4j-core" });
    expect(log4j.advisoryIds).toEqual(expect.arrayContaining(["CVE-2021-44228", "CVE-2021-45046"]));
    // PyPI names are normalised as the matcher names them.
    const django = await findings.lookupExternalPackage({ ecosystem: "pypi", name: "Django" }, viewer);
    expect(django.advisoryIds.length).toBeGreaterThan(10);
    const unknown = await findings.lookupExternalPackage({ ecosystem: "npm", name: `no-such-${randomUUID()}` }, viewer);
    expect(unknown).toMatchObject({ found: false, advisoryIds: [], internalProjects: [] });
    expect(await connectCode(findings.lookupExternalPackage({ ecosystem: "cobol", name: "x" }, viewer))).toBe(
      Code.InvalidArgument,
    );
  });
});

describe("an advisory", () => {
  it("is found by its id or any alias, ignoring case, with the CVSS v3 score its vector gives", async () => {
    const byCve = await findings.lookupExternalAdvisory({ advisoryId: "CVE-2021-44228" }, viewer);
    expect(byCve).toMatchObject({
      found: true,
      advisoryId: "CVE-2021-44228",
      aliases: ["GHSA-jfh8-c2jp-5v3q"],
      title: "Remote code injection in Log4j",
      // NVD's base score for CVE-2021-44228 (v3.1).
      cvss3Score: 10,
      cvss3Vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H",
    });
    const byGhsa = await findings.lookupExternalAdvisory({ advisoryId: "ghsa-jfh8-c2jp-5v3q" }, viewer);
    expect(byGhsa).toMatchObject({ found: true, advisoryId: "GHSA-jfh8-c2jp-5v3q", aliases: ["CVE-2021-44228"] });
    // body-parser's record carries a v4 and a v3.1 vector: the v3 score is shown (NVD: 7.5).
    const bodyParser = await findings.lookupExternalAdvisory({ advisoryId: "CVE-2024-45590" }, viewer);
    expect(bodyParser).toMatchObject({
      found: true,
      aliases: ["GHSA-qwcr-r2fm-qrc7"],
      cvss3Score: 7.5,
      cvss3Vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H",
    });
    const unknown = await findings.lookupExternalAdvisory({ advisoryId: "CVE-1900-0001" }, viewer);
    expect(unknown).toMatchObject({ found: false, advisoryId: "CVE-1900-0001", aliases: [] });
  });
});

describe("a package some project holds", () => {
  it("adds the projects the caller may read, their versions and licenses, to the database's advisories", async () => {
    const projectId = await projectHoldingLodash();
    const seen = await findings.lookupExternalPackage({ ecosystem: "npm", name: "lodash" }, viewer);
    expect(seen).toMatchObject({ found: true, advisoryIds: LODASH, licenses: ["MIT"], version: "4.17.20" });
    expect(seen.internalProjects).toEqual([
      expect.objectContaining({ projectId, versions: ["4.17.20"], name: expect.stringMatching(/^Lookups /) }),
    ]);
    const hidden = await findings.lookupExternalPackage({ ecosystem: "npm", name: "lodash" }, outsider);
    expect(hidden).toMatchObject({ found: true, advisoryIds: LODASH, internalProjects: [], licenses: [], version: "" });
  });
});

describe("the lookups' availability", () => {
  it("answer 404 when EXTERNAL_PACKAGE_LOOKUP_ENABLED is false", async () => {
    const off = await startService(service, {
      env: { IDENTITY_RPC_URL: h.identity.url!, EXTERNAL_PACKAGE_LOOKUP_ENABLED: "false" },
    });
    try {
      const client = off.client(VulnerabilityFindingService);
      expect(await connectCode(client.lookupExternalPackage({ ecosystem: "npm", name: "lodash" }, viewer))).toBe(
        Code.NotFound,
      );
      expect(await connectCode(client.lookupExternalAdvisory({ advisoryId: "CVE-2021-44228" }, viewer))).toBe(
        Code.NotFound,
      );
    } finally {
      await off.close();
    }
  });

  it("answer unavailable, not an empty answer, when the runner cannot be reached", async () => {
    // A port nothing listens on: the runner is down.
    const cut = await startService(service, {
      env: { IDENTITY_RPC_URL: h.identity.url!, SCANNER_RUNNER_RPC_URL: "http://127.0.0.1:1" },
    });
    try {
      const client = cut.client(VulnerabilityFindingService);
      expect(await connectCode(client.lookupExternalPackage({ ecosystem: "npm", name: "lodash" }, viewer))).toBe(
        Code.Unavailable,
      );
      expect(await connectCode(client.lookupExternalAdvisory({ advisoryId: "CVE-2021-44228" }, viewer))).toBe(
        Code.Unavailable,
      );
    } finally {
      await cut.close();
    }
  });
});
