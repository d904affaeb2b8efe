// The enrichment stage of a real scan job (docs/enrichment-feeds.md, "Component states"): the runner loads the
// vendored end-of-life dataset and malicious snapshot (the real files of shared/data), asks a real local HTTP server
// speaking each package registry's API for the latest versions, and projects stores every state on the snapshot's
// rows, which the component list's filters then read. Expectations about end of life and malicious packages are read
// from the shared data files themselves.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { TOPICS } from "@sca/kafka";
import { ScanAttemptFinishedSchema, ScanLogLineSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { InventoryService, type Component } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import {
  closeTogether,
  callAs,
  EventReader,
  sharedDir,
  startService,
  type CallOptions,
  type TestService,
} from "@sca/testkit";
import { service } from "../src/service.ts";
import { COMPONENT_STATE_FEEDS, enrichmentUpdatesQueued } from "../src/store/pending-refreshes.ts";
import { startRegistryServer, type RegistryServer } from "./support/registry-server.ts";
import { artefactDirectory, eventually, makeProject, publishJobs, scanJob, upload } from "./support/scan-jobs.ts";

const data = (...p: string[]) => join(sharedDir(), "data", ...p);
const json = (...p: string[]) => JSON.parse(readFileSync(data(...p), "utf8")) as Record<string, unknown>;

/** The cycle's end of life as the real dataset says, and the state it gives today. */
function eolOfDataset(product: string, cycle: string): { date: string; state: string } {
  const releases = json("eol", `${product}.json`).releases as { releaseCycle: string; eol: string | boolean }[];
  const date = releases.find((r) => r.releaseCycle === cycle)!.eol as string;
  return { date, state: date <= new Date().toISOString().slice(0, 10) ? "eol" : "supported" };
}

/** A MAL- record's id and its first origin's source, as the snapshot holds them. */
function maliciousRecord(path: string): { id: string; source: string } {
  const doc = json("malicious", path) as { id: string; database_specific?: Record<string, { source: string }[]> };
  return { id: doc.id, source: doc.database_specific?.["malicious-packages-origins"]?.[0]?.source ?? "" };
}

const COMPONENTS = [
  ["@angular/core", "12.2.0", "pkg:npm/%40angular/core@12.2.0"],
  ["django", "5.2.1", "pkg:pypi/django@5.2.1"],
  ["angular-codemirror", "1.0.0", "pkg:npm/angular-codemirror@1.0.0"],
  ["iiris-new", "2.0.16", "pkg:pypi/iiris-new@2.0.16"],
  ["iiris-new", "2.0.15", "pkg:pypi/iiris-new@2.0.15"],
  ["serde", "1.0.100", "pkg:cargo/serde@1.0.100"],
  ["toml", "v1.2.0", "pkg:golang/github.com/BurntSushi/toml@v1.2.0"],
  ["log4j-core", "2.14.1", "pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1"],
  ["Newtonsoft.Json", "13.0.1", "pkg:nuget/Newtonsoft.Json@13.0.1"],
  ["rails", "7.0.0", "pkg:gem/rails@7.0.0"],
  ["nginx", "1.22.1-9", "pkg:deb/debian/nginx@1.22.1-9?distro=debian-12"],
  ["vendored-thing", "1.0", null],
] as const;

function sbom(): Buffer {
  return Buffer.from(
    JSON.stringify({
      bomFormat: "CycloneDX",
      specVersion: "1.5",
      version: 1,
      metadata: { component: { type: "application", name: "states-app", version: "1.0.0" } },
      components: COMPONENTS.map(([name, version, purl], i) => ({
        type: "library",
        "bom-ref": `c${i}`,
        name,
        version,
        ...(purl ? { purl } : {}),
      })),
    }),
  );
}

// The registries' documents, shaped as the public registries answer (trimmed to a few releases).
const REGISTRY = {
  "/npm/@angular%2Fcore": {
    body: JSON.stringify({
      _id: "@angular/core",
      name: "@angular/core",
      "dist-tags": { latest: "22.1.3", next: "23.0.0-next.1" },
      versions: { "12.2.0": {}, "22.1.3": {}, "23.0.0-next.1": {} },
      time: {
        created: "2016-04-29T00:00:00.000Z",
        modified: "2026-08-19T17:10:00.000Z",
        "12.2.0": "2021-08-04T19:00:00.000Z",
        "22.1.3": "2026-08-19T17:02:11.000Z",
      },
    }),
  },
  "/pypi/pypi/django/json": {
    body: JSON.stringify({
      info: { name: "Django", version: "5.2.1", summary: "A high-level Python web framework" },
      last_serial: 1,
      releases: {},
      urls: [
        { filename: "django-5.2.1-py3-none-any.whl", upload_time_iso_8601: "2025-05-07T15:32:03.112411Z" },
        { filename: "django-5.2.1.tar.gz", upload_time_iso_8601: "2025-05-07T15:32:08.516347Z" },
      ],
    }),
  },
  "/crates/api/v1/crates/serde": {
    body: JSON.stringify({
      crate: {
        id: "serde",
        name: "serde",
        max_version: "1.0.228",
        max_stable_version: "1.0.228",
        newest_version: "1.0.228",
      },
      versions: [
        { num: "1.0.228", created_at: "2025-09-27T16:51:35.066587+00:00", yanked: false },
        { num: "1.0.100", created_at: "2019-09-07T22:00:00.000000+00:00", yanked: false },
      ],
    }),
  },
  "/goproxy/github.com/!burnt!sushi/toml/@latest": {
    body: JSON.stringify({ Version: "v1.5.0", Time: "2025-03-18T13:53:50Z", Origin: { VCS: "git" } }),
  },
  "/maven2/org/apache/logging/log4j/log4j-core/maven-metadata.xml": {
    type: "text/xml",
    body:
      '<?xml version="1.0" encoding="UTF-8"?>\n<metadata><groupId>org.apache.logging.log4j</groupId>' +
      "<artifactId>log4j-core</artifactId><versioning><latest>2.25.1</latest><release>2.25.1</release>" +
      "<versions><version>2.14.1</version><version>2.25.1</version></versions>" +
      "<lastUpdated>20250710120000</lastUpdated></versioning></metadata>",
  },
  "/nuget/v3-flatcontainer/newtonsoft.json/index.json": {
    body: JSON.stringify({ versions: ["12.0.3", "13.0.1", "13.0.2-beta1", "13.0.3", "13.0.4-beta1"] }),
  },
};

let artefacts: Awaited<ReturnType<typeof artefactDirectory>>;
let registry: RegistryServer;
let identity: TestService;
let projects: TestService;
let runner: TestService;
let events: EventReader;
let reader: CallOptions;

beforeAll(async () => {
  artefacts = await artefactDirectory();
  registry = await startRegistryServer(REGISTRY);
  registry.hang.add("/rubygems/api/v1/versions/rails/latest.json");
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
  });
  projects = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url!, ARTEFACT_DIR: artefacts.dir } });
  runner = await startService(service, {
    env: {
      ARTEFACT_DIR: artefacts.dir,
      PROJECTS_RPC_URL: projects.url!,
      // Nothing from the internet: the vendored KEV and EPSS snapshots stay.
      KEV_REFRESH_ENABLED: "false",
      EPSS_REFRESH_ENABLED: "false",
      CURRENCY_ENABLED: "true",
      CURRENCY_LOOKUP_TIMEOUT_SECONDS: "1",
      PACKAGE_REGISTRY_NPM_URL: `${registry.url}/npm`,
      PACKAGE_REGISTRY_PYPI_URL: `${registry.url}/pypi/`,
      PACKAGE_REGISTRY_CRATES_URL: `${registry.url}/crates`,
      PACKAGE_REGISTRY_GO_URL: `${registry.url}/goproxy`,
      PACKAGE_REGISTRY_NUGET_URL: `${registry.url}/nuget`,
      PACKAGE_REGISTRY_RUBYGEMS_URL: `${registry.url}/rubygems`,
      PACKAGE_REGISTRY_MAVEN_URL: `${registry.url}/maven2`,
    },
  });
  events = await EventReader.start(runner.kafka!, TOPICS.scanEvents);
  reader = await callAs.superAdmin("00000000-0000-4000-8000-00000000c0de");
  // The vendored snapshots are loaded on the first start.
  const count = async (table: string) =>
    Number((await runner.orm.em.getConnection().execute<{ n: string }[]>(`select count(*) as n from ${table}`))[0]!.n);
  await eventually(
    async () => (await count("eol_products")) > 0 && (await count("malicious_packages")) > 0,
    "the vendored snapshots are loaded",
    60_000,
  );
  // Loading them queued a re-stamp of the (here empty) inventories; the scan's own stage is what this file checks.
  await eventually(
    async () => !(await enrichmentUpdatesQueued(runner.orm.em.fork(), COMPONENT_STATE_FEEDS)),
    "the snapshot loads' re-stamp is done",
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await events?.stop();
  await closeTogether([runner, projects, identity, registry]);
  await artefacts?.remove();
}, 60_000);

describe("the enrichment stage", () => {
  it("records end-of-life, currency and malicious states of a scan's components in projects", async () => {
    const projectId = await makeProject(identity, projects);
    const job = scanJob({ lane: "manual", projectId, sbom: await upload(artefacts.store, projectId, sbom()) });
    await publishJobs(runner.kafka!, "manual", [job]);
    const [finished] = await events.waitFor(ScanAttemptFinishedSchema, (e) => e.scanId === job.scanId, 1, 90_000);
    expect(finished).toMatchObject({ outcome: "succeeded", componentCount: COMPONENTS.length });

    const inventory = projects.client(InventoryService);
    const page = await inventory.listComponents({ projectId, limit: 50 }, reader);
    const by = (name: string, version: string) => page.items.find((c) => c.name === name && c.version === version)!;
    const states = (c: Component) => ({
      eol: [c.eolState ?? null, c.eolCycle ?? null, c.eolDate ?? null, c.eolProduct ?? null, c.eolSource ?? null],
      currency: [c.currencyState ?? null, c.currencyLatest ?? null, c.currencyLatestReleaseDate ?? null],
      malicious: [c.maliciousState ?? null, c.maliciousId ?? null, c.maliciousSource ?? null],
    });

    const angular = eolOfDataset("angular", "12");
    expect(states(by("@angular/core", "12.2.0"))).toEqual({
      eol: [angular.state, "12", angular.date, "angular", "endoflife.date"],
      currency: ["outdated", "22.1.3", "2026-08-19"],
      malicious: ["clear", null, null],
    });
    const django = eolOfDataset("django", "5.2");
    expect(states(by("django", "5.2.1"))).toEqual({
      eol: [django.state, "5.2", django.date, "django", "endoflife.date"],
      currency: ["current", "5.2.1", "2025-05-07"],
      malicious: ["clear", null, null],
    });
    // A MAL- record holding every version (introduced 0); npm knows no such package any more: 404, unknown.
    const codemirror = maliciousRecord("npm/MAL-2022-1005.json");
    expect(states(by("angular-codemirror", "1.0.0"))).toEqual({
      eol: [null, null, null, null, null],
      currency: ["unknown", null, null],
      malicious: ["flagged", codemirror.id, codemirror.source],
    });
    // A record listing versions: the listed one is flagged, its neighbour is not.
    const iiris = maliciousRecord("PyPI/MAL-2023-1368.json");
    expect(states(by("iiris-new", "2.0.16")).malicious).toEqual([
      "flagged",
      iiris.id,
      iiris.source || "ossf-malicious-packages",
    ]);
    expect(states(by("iiris-new", "2.0.15")).malicious).toEqual(["clear", null, null]);
    expect(states(by("serde", "1.0.100")).currency).toEqual(["outdated", "1.0.228", "2025-09-27"]);
    expect(states(by("toml", "v1.2.0")).currency).toEqual(["outdated", "v1.5.0", "2025-03-18"]);
    expect(states(by("log4j-core", "2.14.1")).currency).toEqual(["outdated", "2.25.1", null]);
    // The highest stable version of the flat container's list.
    expect(states(by("Newtonsoft.Json", "13.0.1")).currency).toEqual(["outdated", "13.0.3", null]);
    // RubyGems never answered: the lookup's timeout, then unknown.
    expect(states(by("rails", "7.0.0")).currency).toEqual(["unknown", null, null]);
    // An OS package: its end of life (the dataset lists pkg:deb/debian/nginx), no registry, no malicious verdict.
    const nginx = by("nginx", "1.22.1-9");
    expect(nginx.eolProduct).toBe("nginx");
    expect(states(nginx).currency).toEqual([null, null, null]);
    expect(states(nginx).malicious).toEqual([null, null, null]);
    // No purl: nothing assessed.
    expect(states(by("vendored-thing", "1.0"))).toEqual({
      eol: [null, null, null, null, null],
      currency: [null, null, null],
      malicious: [null, null, null],
    });

    // The filters read the states.
    const names = async (filter: Record<string, boolean>) =>
      (await inventory.listComponents({ projectId, limit: 50, filter }, reader)).items
        .map((c) => `${c.name}@${c.version}`)
        .sort();
    expect(await names({ malicious: true })).toEqual(["angular-codemirror@1.0.0", "iiris-new@2.0.16"]);
    expect(await names({ outdated: true })).toEqual([
      "@angular/core@12.2.0",
      "Newtonsoft.Json@13.0.1",
      "log4j-core@2.14.1",
      "serde@1.0.100",
      "toml@v1.2.0",
    ]);
    expect(await names({ eol: true })).toEqual(
      page.items
        .filter((c) => c.eolState === "eol")
        .map((c) => `${c.name}@${c.version}`)
        .sort(),
    );
    expect(await names({ eol: true })).toContain("@angular/core@12.2.0");

    // Each registry was asked once per package, at its own API's path.
    expect(registry.requests).toEqual(
      expect.arrayContaining([...Object.keys(REGISTRY), "/npm/angular-codemirror", "/pypi/pypi/iiris-new/json"]),
    );
    expect(registry.requests.filter((p) => p.includes("iiris-new"))).toHaveLength(1);
    const lines = await events.waitFor(ScanLogLineSchema, (l) => l.scanId === job.scanId && /^Assessed/.test(l.line));
    expect(lines[0]!.line).toMatch(
      /^Assessed 11 distinct purls: .* 2 known malicious; 5 outdated, 1 current, 4 of unknown currency\. 11 component rows updated\.$/,
    );
  }, 150_000);
});
