// The license lookup (docs/license-fetch.md) through a real runner and projects: the registries are a local HTTP
// server answering recorded real responses of registry.npmjs.org, pypi.org and repo1.maven.org
// (test/fixtures/registry-recordings/SOURCES.md says where and when each came from), a registry that holds requests
// (answering only when the test releases them, or never), and a closed port (an air-gapped install).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { TOPICS } from "@sca/kafka";
import { ScanAttemptFinishedSchema, ScanLogLineSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { InventoryService, type Component } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { VulnerabilityFindingService } from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import { closeTogether, callAs, eventually, EventReader, freePort, startService, type TestService } from "@sca/testkit";
import { LICENSE_SOURCE_PROPERTY } from "../src/domain/licenses/fetched-licenses.ts";
import { service } from "../src/service.ts";
import { startRegistryServer, type RegistryServer } from "./support/registry-server.ts";
import { artefactDirectory, makeProject, publishJobs, scanJob, upload } from "./support/scan-jobs.ts";

const recordings = join(import.meta.dirname, "fixtures/registry-recordings");
const recorded = (path: string, type?: string) => ({ body: readFileSync(join(recordings, path), "utf8"), type });
const pom = (path: string) => recorded(`maven2/${path}`, "text/xml");

/** Each recording under the path the lookup asks (npm escapes a scoped name's "/" as %2F). */
const REGISTRY = {
  "/npm/left-pad": recorded("npm/left-pad"),
  "/npm/@tootallnate%2Fonce": recorded("npm/@tootallnate%2fonce"),
  "/pypi/pypi/six/json": recorded("pypi/pypi/six/json"),
  "/maven2/junit/junit/4.13.2/junit-4.13.2.pom": pom("junit/junit/4.13.2/junit-4.13.2.pom"),
  "/maven2/commons-io/commons-io/2.11.0/commons-io-2.11.0.pom": pom(
    "commons-io/commons-io/2.11.0/commons-io-2.11.0.pom",
  ),
  "/maven2/org/apache/commons/commons-parent/52/commons-parent-52.pom": pom(
    "org/apache/commons/commons-parent/52/commons-parent-52.pom",
  ),
  "/maven2/org/apache/apache/23/apache-23.pom": pom("org/apache/apache/23/apache-23.pom"),
  "/maven2/com/google/code/gson/gson/2.10.1/gson-2.10.1.pom": pom("com/google/code/gson/gson/2.10.1/gson-2.10.1.pom"),
  "/maven2/com/google/code/gson/gson-parent/2.10.1/gson-parent-2.10.1.pom": pom(
    "com/google/code/gson/gson-parent/2.10.1/gson-parent-2.10.1.pom",
  ),
};

/** name, version, purl, the license the document declares (if any). */
const COMPONENTS: [string, string, string, string?][] = [
  ["left-pad", "1.3.0", "pkg:npm/left-pad@1.3.0"],
  ["left-pad", "0.0.3", "pkg:npm/left-pad@0.0.3"],
  ["@tootallnate/once", "2.0.0", "pkg:npm/%40tootallnate/once@2.0.0"],
  ["six", "1.16.0", "pkg:pypi/six@1.16.0"],
  ["junit", "4.13.2", "pkg:maven/junit/junit@4.13.2"],
  ["commons-io", "2.11.0", "pkg:maven/commons-io/commons-io@2.11.0"],
  ["gson", "2.10.1", "pkg:maven/com.google.code.gson/gson@2.10.1"],
  ["declared", "1.0.0", "pkg:npm/declared@1.0.0", "ISC"],
  ["gone", "1.0.0", "pkg:npm/gone@1.0.0"],
  ["uuid", "v1.6.0", "pkg:golang/github.com/google/uuid@v1.6.0"],
  // Vulnerable in the vendored advisories (CVE-2019-10744 and others): the findings of the scan.
  ["lodash", "4.17.11", "pkg:npm/lodash@4.17.11", "MIT"],
];

function sbom(): Buffer {
  return Buffer.from(
    JSON.stringify({
      bomFormat: "CycloneDX",
      specVersion: "1.5",
      version: 1,
      metadata: { component: { type: "application", name: "license-app", version: "1.0.0" } },
      components: COMPONENTS.map(([name, version, purl, license], i) => ({
        type: "library",
        "bom-ref": `c${i}`,
        name,
        version,
        purl,
        ...(license ? { licenses: [{ license: { id: license } }] } : {}),
      })),
    }),
  );
}

let artefacts: Awaited<ReturnType<typeof artefactDirectory>>;
let registry: RegistryServer;
let identity: TestService;
let projects: TestService;
let events: EventReader | undefined;

const registryEnv = () => ({
  PACKAGE_REGISTRY_NPM_URL: `${registry.url}/npm`,
  PACKAGE_REGISTRY_PYPI_URL: `${registry.url}/pypi`,
  PACKAGE_REGISTRY_CRATES_URL: `${registry.url}/crates`,
  PACKAGE_REGISTRY_GO_URL: `${registry.url}/goproxy`,
  PACKAGE_REGISTRY_MAVEN_URL: `${registry.url}/maven2`,
});

beforeAll(async () => {
  artefacts = await artefactDirectory();
  registry = await startRegistryServer(REGISTRY);
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
  });
  projects = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url!, ARTEFACT_DIR: artefacts.dir } });
}, 120_000);

afterAll(async () => {
  await events?.stop();
  await closeTogether([projects, identity, registry]);
  await artefacts?.remove();
}, 60_000);

/** The project's stored components, each with its raw_data. */
async function storedComponents(projectId: string): Promise<Component[]> {
  // A caller token of its own per call: the file runs longer than one lives.
  const reader = await callAs.superAdmin("00000000-0000-4000-8000-00000000c0de");
  const inventory = projects.client(InventoryService);
  const page = await inventory.listComponents({ projectId, limit: 50 }, reader);
  // The list leaves raw_data out: each component's detail carries it.
  return Promise.all(
    page.items.map(
      async (c) => (await inventory.getComponent({ projectId, componentId: c.componentId }, reader)).component!,
    ),
  );
}

const runnerEnv = (env: Record<string, string>) => ({
  ARTEFACT_DIR: artefacts.dir,
  PROJECTS_RPC_URL: projects.url!,
  KEV_REFRESH_ENABLED: "false",
  EPSS_REFRESH_ENABLED: "false",
  ...registryEnv(),
  ...env,
});

/**
 * Runs one scan of the SBOM on a runner started with `env`; answers its stored components and its log lines. The
 * scan's outcome waits for the local registry as long as the lookup may take (REGISTRY_LOOKUP_WAIT_SECONDS), so what
 * these tests read at the outcome does not depend on how loaded the machine is; the tests below it use the default.
 */
async function scanWith(env: Record<string, string>) {
  const runner = await startService(service, { env: runnerEnv({ REGISTRY_LOOKUP_WAIT_SECONDS: "600", ...env }) });
  try {
    events = await EventReader.start(runner.kafka!, TOPICS.scanEvents);
    const scanOnce = async () => {
      const projectId = await makeProject(identity, projects);
      const job = scanJob({ lane: "manual", projectId, sbom: await upload(artefacts.store, projectId, sbom()) });
      await publishJobs(runner.kafka!, "manual", [job]);
      const [finished] = await events!.waitFor(ScanAttemptFinishedSchema, (e) => e.scanId === job.scanId, 1, 90_000);
      expect(finished).toMatchObject({ outcome: "succeeded", componentCount: COMPONENTS.length });
      const components = await storedComponents(projectId);
      // Written before the outcome, on the scan's partition: already read.
      const lines = (
        await events!.waitFor(ScanLogLineSchema, (l) => l.scanId === job.scanId && l.stage === "licenses", 0)
      ).map((l) => l.line);
      return { components, lines };
    };
    const first = await scanOnce();
    const asked = [...registry.requests];
    const second = await scanOnce();
    return { first, second, asked, askedAgain: registry.requests.slice(asked.length) };
  } finally {
    await events?.stop();
    events = undefined;
    await runner.close();
  }
}

const licenseOf = (items: Component[], name: string, version: string) => {
  const c = items.find((i) => i.name === name && i.version === version)!;
  const raw = JSON.parse(Buffer.from(c.rawData).toString("utf8")) as {
    properties?: { name: string; value: string }[];
  };
  return {
    license: c.license ?? null,
    declared: c.declaredLicense ?? null,
    ids: c.licenseIds,
    source: raw.properties?.find((p) => p.name === LICENSE_SOURCE_PROPERTY)?.value ?? null,
  };
};

describe("LICENSE_FETCH_ENABLED", () => {
  it("fills missing licenses from the registries' recorded answers, marked as the registry's", async () => {
    registry.requests.length = 0;
    const { first, second, asked, askedAgain } = await scanWith({
      LICENSE_FETCH_ENABLED: "true",
      CURRENCY_ENABLED: "true",
    });
    const items = first.components;

    // npm: each release's own license in the packument (left-pad moved from BSD to WTFPL at 0.0.9).
    expect(licenseOf(items, "left-pad", "1.3.0")).toEqual({
      license: "WTFPL",
      declared: "WTFPL",
      ids: ["WTFPL"],
      source: "registry:npm",
    });
    expect(licenseOf(items, "left-pad", "0.0.3")).toMatchObject({ license: "BSD-2-Clause", source: "registry:npm" });
    expect(licenseOf(items, "@tootallnate/once", "2.0.0")).toMatchObject({ license: "MIT", source: "registry:npm" });
    // PyPI: this machine's pypi.org serves no release document (404), so the project's document says MIT.
    expect(licenseOf(items, "six", "1.16.0")).toMatchObject({ license: "MIT", source: "registry:pypi" });
    // Maven: the POM's <licenses>, else its parents' (commons-io -> commons-parent 52 -> apache 23).
    expect(licenseOf(items, "junit", "4.13.2")).toMatchObject({ license: "EPL-1.0", source: "registry:maven" });
    expect(licenseOf(items, "commons-io", "2.11.0")).toMatchObject({
      license: "Apache-2.0",
      source: "registry:maven",
    });
    expect(licenseOf(items, "gson", "2.10.1")).toMatchObject({ license: "Apache-2.0", source: "registry:maven" });
    // A declared license stays the document's (nobody asked); a 404 and Go (no license in its proxy) stay empty.
    expect(licenseOf(items, "declared", "1.0.0")).toEqual({
      license: "ISC",
      declared: "ISC",
      ids: ["ISC"],
      source: null,
    });
    expect(licenseOf(items, "gone", "1.0.0")).toMatchObject({ license: null, source: null });
    expect(licenseOf(items, "uuid", "v1.6.0")).toMatchObject({ license: null, source: null });
    expect(asked.some((p) => p.startsWith("/goproxy/") && !p.endsWith("/@latest"))).toBe(false);

    // The packument the license lookup read served the currency stage too: left-pad's was asked once for its two
    // releases and both stages, and so was the 404 of "gone".
    expect(asked.filter((p) => p === "/npm/left-pad")).toHaveLength(1);
    expect(asked.filter((p) => p === "/npm/gone")).toHaveLength(1);
    expect(items.find((c) => c.name === "left-pad" && c.version === "1.3.0")!.currencyState).toBe("current");
    // PyPI: the release document first (404 here), then the project's; the parent POM once for two artifacts' chains.
    expect(asked).toContain("/pypi/pypi/six/1.16.0/json");
    expect(asked.filter((p) => p === "/maven2/org/apache/apache/23/apache-23.pom")).toHaveLength(1);

    expect(first.lines.join("\n")).toMatch(
      /^License lookup: 9 components without a license; 7 filled from their registries \(npm 3, pypi 1, maven 3\), 1 the registry states none for \(or could not be asked\), 1 of Go, NuGet or RubyGems \(whose registries state no license\)\. 7 component rows of the snapshot updated\.$/m,
    );
    // The same releases again within the hour: answered from the cache, nothing is asked of the license documents.
    expect(askedAgain.filter((p) => !p.endsWith("maven-metadata.xml") && !p.endsWith("/@latest"))).toEqual([]);
    expect(licenseOf(second.components, "commons-io", "2.11.0")).toMatchObject({ license: "Apache-2.0" });
  }, 240_000);

  it("stops at LICENSE_FETCH_STAGE_SECONDS: a registry that never answers leaves its releases unfilled", async () => {
    registry.requests.length = 0;
    const pomPath = "/maven2/junit/junit/4.13.2/junit-4.13.2.pom";
    registry.hang.add(pomPath);
    try {
      const started = Date.now();
      const { first } = await scanWith({
        LICENSE_FETCH_ENABLED: "true",
        LICENSE_FETCH_STAGE_SECONDS: "2",
        LICENSE_FETCH_TIMEOUT_SECONDS: "3",
      });
      expect(Date.now() - started).toBeLessThan(120_000);
      expect(licenseOf(first.components, "junit", "4.13.2")).toMatchObject({ license: null, source: null });
      expect(licenseOf(first.components, "left-pad", "1.3.0")).toMatchObject({ license: "WTFPL" });
      expect(first.lines.join("\n")).toMatch(
        /, 1 not reached within LICENSE_FETCH_STAGE_SECONDS \(2 s\)\. 6 component rows of the snapshot updated\.$/m,
      );
      expect(registry.requests).toContain(pomPath);
    } finally {
      registry.hang.delete(pomPath);
    }
  }, 240_000);

  it("reports the outcome without waiting for a registry that holds its answer; the licenses land when it answers", async () => {
    registry.requests.length = 0;
    // left-pad's packument is held: the license and currency lookups wait for it (the default
    // REGISTRY_LOOKUP_WAIT_SECONDS); the timeouts are long, so the answer comes from the registry, not a timeout.
    const packument = "/npm/left-pad";
    registry.hang.add(packument);
    const runner = await startService(service, {
      env: runnerEnv({
        LICENSE_FETCH_ENABLED: "true",
        CURRENCY_ENABLED: "true",
        LICENSE_FETCH_STAGE_SECONDS: "120",
        LICENSE_FETCH_TIMEOUT_SECONDS: "120",
        CURRENCY_LOOKUP_STAGE_SECONDS: "120",
        CURRENCY_LOOKUP_TIMEOUT_SECONDS: "120",
      }),
    });
    try {
      events = await EventReader.start(runner.kafka!, TOPICS.scanEvents);
      const projectId = await makeProject(identity, projects);
      const job = scanJob({ lane: "manual", projectId, sbom: await upload(artefacts.store, projectId, sbom()) });
      await publishJobs(runner.kafka!, "manual", [job]);
      const findingTotal = async () =>
        (
          await projects
            .client(VulnerabilityFindingService)
            .listVulnerabilityFindings(
              { projectId, anchor: {}, limit: 1 },
              await callAs.superAdmin("00000000-0000-4000-8000-00000000c0de"),
            )
        ).total;
      const [finished] = await events.waitFor(ScanAttemptFinishedSchema, (e) => e.scanId === job.scanId, 1, 90_000);
      // The scan succeeded while the registry still held left-pad's request: its two releases were pending.
      expect(finished).toMatchObject({
        outcome: "succeeded",
        componentCount: COMPONENTS.length,
        pendingLicenseCount: 2,
        pendingLicensePurls: ["pkg:npm/left-pad@0.0.3", "pkg:npm/left-pad@1.3.0"],
      });
      expect(registry.held(packument)).toBe(1);
      // lodash 4.17.11's findings are listed; no license the registries state is on left-pad's rows yet.
      const total = await findingTotal();
      expect(total).toBeGreaterThan(0);
      const atOutcome = await storedComponents(projectId);
      expect(licenseOf(atOutcome, "left-pad", "1.3.0")).toMatchObject({ license: null, source: null });
      expect(licenseOf(atOutcome, "left-pad", "0.0.3")).toMatchObject({ license: null, source: null });
      const lines = (
        await events.waitFor(ScanLogLineSchema, (l) => l.scanId === job.scanId && l.stage === "licenses", 0)
      ).map((l) => l.line);
      expect(lines.join("\n")).toMatch(
        /, 2 still being asked when the scan's outcome was due \(REGISTRY_LOOKUP_WAIT_SECONDS, filled in after it\)\. \d component rows of the snapshot updated\.$/m,
      );

      // The late lookup has taken the scan's queued purls (it asks through the same client, joining the download in
      // flight); then the registry answers, and it fills left-pad's licenses and its currency in on the stored rows.
      await eventually(
        () =>
          runner.orm.em
            .fork()
            .getConnection()
            .execute<{ n: number }[]>(
              "select count(*)::int as n from late_registry_lookups where scan_id = ? and claimed_until is not null",
              [job.scanId],
            ),
        (rows) => rows[0]!.n === 1,
        30_000,
      );
      registry.release(packument);
      // Both releases: the rows are read one by one, so a read may fall on either side of the fill's commit.
      const late = await eventually(
        () => storedComponents(projectId),
        (items) => ["1.3.0", "0.0.3"].every((v) => licenseOf(items, "left-pad", v).license !== null),
        60_000,
      );
      expect(licenseOf(late, "left-pad", "1.3.0")).toEqual({
        license: "WTFPL",
        declared: "WTFPL",
        ids: ["WTFPL"],
        source: "registry:npm",
      });
      expect(licenseOf(late, "left-pad", "0.0.3")).toMatchObject({ license: "BSD-2-Clause", source: "registry:npm" });
      const current = await eventually(
        () => storedComponents(projectId),
        (items) => items.find((c) => c.name === "left-pad" && c.version === "1.3.0")!.currencyState !== undefined,
        60_000,
      );
      expect(current.find((c) => c.name === "left-pad" && c.version === "1.3.0")!.currencyState).toBe("current");
      // Everything the registries answered at once stayed as it was, and so did the findings; asked once.
      expect(licenseOf(late, "commons-io", "2.11.0")).toMatchObject({
        license: "Apache-2.0",
        source: "registry:maven",
      });
      expect(licenseOf(late, "six", "1.16.0")).toMatchObject({ license: "MIT", source: "registry:pypi" });
      expect(licenseOf(late, "lodash", "4.17.11")).toMatchObject({ license: "MIT", source: null });
      expect(await findingTotal()).toBe(total);
      expect(registry.requests).toContain(packument);
      expect(registry.held()).toBe(0);
    } finally {
      registry.release(packument);
      await events?.stop();
      events = undefined;
      await runner.close();
    }
  }, 240_000);

  it("air-gapped, registries at a closed port: the scan succeeds with nothing pending, the licenses left empty", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const runner = await startService(service, {
      env: runnerEnv({
        LICENSE_FETCH_ENABLED: "true",
        CURRENCY_ENABLED: "true",
        PACKAGE_REGISTRY_NPM_URL: `${url}/npm`,
        PACKAGE_REGISTRY_PYPI_URL: `${url}/pypi`,
        PACKAGE_REGISTRY_CRATES_URL: `${url}/crates`,
        PACKAGE_REGISTRY_GO_URL: `${url}/goproxy`,
        PACKAGE_REGISTRY_MAVEN_URL: `${url}/maven2`,
      }),
    });
    try {
      events = await EventReader.start(runner.kafka!, TOPICS.scanEvents);
      const projectId = await makeProject(identity, projects);
      const job = scanJob({ lane: "manual", projectId, sbom: await upload(artefacts.store, projectId, sbom()) });
      await publishJobs(runner.kafka!, "manual", [job]);
      const [finished] = await events.waitFor(ScanAttemptFinishedSchema, (e) => e.scanId === job.scanId, 1, 90_000);
      expect(finished).toMatchObject({ outcome: "succeeded", pendingLicenseCount: 0, pendingLicensePurls: [] });
      const lines = (
        await events.waitFor(ScanLogLineSchema, (l) => l.scanId === job.scanId && l.stage === "licenses", 0)
      ).map((l) => l.line);
      expect(lines.join("\n")).toMatch(
        /; 0 filled from their registries, 8 the registry states none for \(or could not be asked\), 1 of Go, NuGet or RubyGems \(whose registries state no license\)\. 0 component rows of the snapshot updated\.$/m,
      );
      const items = await storedComponents(projectId);
      for (const [name, version, , declared] of COMPONENTS)
        expect(licenseOf(items, name, version)).toMatchObject({ license: declared ?? null, source: null });
    } finally {
      await events?.stop();
      events = undefined;
      await runner.close();
    }
  }, 240_000);

  it("air-gapped, a registry that never answers: the scan succeeds with the lookups pending, the next asks nobody", async () => {
    registry.requests.length = 0;
    registry.hangEverything = true;
    // Timeouts short but above the outcome's wait (REGISTRY_LOOKUP_WAIT_SECONDS, 2 s by default), so the lookups are
    // still pending at the outcome and the late lookup waits out 4 s per request, not the default 10 s.
    const runner = await startService(service, {
      env: runnerEnv({
        LICENSE_FETCH_ENABLED: "true",
        CURRENCY_ENABLED: "true",
        LICENSE_FETCH_TIMEOUT_SECONDS: "4",
        CURRENCY_LOOKUP_TIMEOUT_SECONDS: "4",
      }),
    });
    try {
      events = await EventReader.start(runner.kafka!, TOPICS.scanEvents);
      const projectId = await makeProject(identity, projects);
      const job = scanJob({ lane: "manual", projectId, sbom: await upload(artefacts.store, projectId, sbom()) });
      await publishJobs(runner.kafka!, "manual", [job]);
      const [finished] = await events.waitFor(ScanAttemptFinishedSchema, (e) => e.scanId === job.scanId, 1, 90_000);
      // Eight releases of npm, PyPI and Maven wanted a license; none answered, and the outcome did not wait for them.
      expect(finished).toMatchObject({
        outcome: "succeeded",
        componentCount: COMPONENTS.length,
        pendingLicenseCount: 8,
      });
      expect(finished!.pendingLicensePurls).toEqual([...finished!.pendingLicensePurls].sort());
      expect(finished!.pendingLicensePurls).toContain("pkg:maven/junit/junit@4.13.2");
      expect(registry.held("/npm/left-pad")).toBe(1);
      const items = await storedComponents(projectId);
      expect(licenseOf(items, "lodash", "4.17.11")).toMatchObject({ license: "MIT", source: null });
      expect(licenseOf(items, "left-pad", "1.3.0")).toMatchObject({ license: null, source: null });

      // The late lookup waits out the requests' timeouts (the 4 s above); eight unanswered in a row
      // pause the host, so the lookup ends and the next scan asks nobody and waits for nothing.
      await eventually(
        () => Promise.resolve(registry.held()),
        (held) => held === 0 && registry.requests.length >= 8,
        90_000,
      );
      const asked = registry.requests.length;
      const nextProject = await makeProject(identity, projects);
      const next = scanJob({
        lane: "manual",
        projectId: nextProject,
        sbom: await upload(artefacts.store, nextProject, sbom()),
      });
      await publishJobs(runner.kafka!, "manual", [next]);
      const [again] = await events.waitFor(ScanAttemptFinishedSchema, (e) => e.scanId === next.scanId, 1, 90_000);
      expect(again).toMatchObject({ outcome: "succeeded", pendingLicenseCount: 0, pendingLicensePurls: [] });
      expect(registry.requests.length).toBe(asked);
      expect(licenseOf(await storedComponents(nextProject), "left-pad", "1.3.0")).toMatchObject({ license: null });
    } finally {
      registry.hangEverything = false;
      await events?.stop();
      events = undefined;
      await runner.close();
    }
  }, 240_000);

  it("leaves missing licenses empty when LICENSE_FETCH_ENABLED=false, asking no registry", async () => {
    registry.requests.length = 0;
    const { first } = await scanWith({ LICENSE_FETCH_ENABLED: "false", CURRENCY_ENABLED: "false" });
    for (const [name, version, , declared] of COMPONENTS)
      expect(licenseOf(first.components, name, version)).toMatchObject({ license: declared ?? null, source: null });
    expect(registry.requests).toEqual([]);
    expect(first.lines).toEqual([]);
  }, 240_000);
});
