// The scanner-runner's fixtures for the tests of other services and for the benchmarks (see @sca/testkit
// fixturesOf): the inventory artefact it writes for an SBOM, made by the same reader and encoder its jobs use, its
// matcher over the vendored advisories, its jobs as the orchestrator publishes them and its source-scan stages over
// a sandbox tree, so that nothing outside imports scanner-runner code. What only some fixtures use is imported when
// they are first used: every test file that asks for fixtures loads this module.
import { chown, cp, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";
import { PackageURL } from "packageurl-js";
import type { ServiceFixtures } from "@sca/testkit";
import { encodeInventoryArtefact } from "../src/domain/inventory-artefact.ts";
import { readSbom } from "../src/domain/sbom/read-sbom.ts";
import type { Advisory } from "../src/domain/vulndb/advisory.ts";
import type { Workspace } from "../src/sandbox/workspace.ts";

/** What a tool may write to the runner's log and read back, as a scan's defaults allow. */
const OUTPUT_MAX_BYTES = 4 * 1024 ** 2;
const SBOM_MAX_BYTES = 50 * 1024 ** 2;
const SCANCODE_RESULT_MAX_BYTES = 256 * 1024 ** 2;
/** The user tools run as when the runner is root (SCAN_SANDBOX_UID's default). */
const SANDBOX_UID = 65534;

/** Every vendored advisory the import would take (those it cannot read are skipped, as it skips them). */
async function vendoredAdvisories(): Promise<Advisory[]> {
  const { readAdvisory } = await import("../src/domain/vulndb/advisory.ts");
  const { VENDORED_SNAPSHOT } = await import("../src/vulndb/advisory-database.ts");
  const { advisoryDocuments } = await import("../src/vulndb/advisory-source.ts");
  const advisories: Advisory[] = [];
  for await (const doc of advisoryDocuments(VENDORED_SNAPSHOT, new AbortController().signal))
    if (doc.text)
      try {
        advisories.push(readAdvisory(JSON.parse(doc.text)));
      } catch {
        // Skipped as the import skips it.
      }
  return advisories;
}

/** A purl per (ecosystem, name) the advisories affect, at a version where an advisory starts (or 0.0.1). */
function samplePurlsOf(advisories: readonly Advisory[]): string[] {
  const types: Record<string, string> = {
    npm: "npm",
    PyPI: "pypi",
    Go: "golang",
    "crates.io": "cargo",
    NuGet: "nuget",
  };
  const out = new Map<string, string>();
  for (const a of advisories)
    for (const af of a.affected) {
      const key = `${af.ecosystem}\u0000${af.name}`;
      if (out.has(key)) continue;
      const version = /"introduced":"([^"0][^"]*)"/.exec(JSON.stringify(af))?.[1] ?? "0.0.1";
      try {
        if (af.ecosystem === "Maven") {
          const [group, artifact] = af.name.split(":");
          if (group && artifact) out.set(key, new PackageURL("maven", group, artifact, version).toString());
        } else if (types[af.ecosystem]) {
          const slash = af.name.lastIndexOf("/");
          const ns = slash > 0 ? af.name.slice(0, slash) : undefined;
          const name = slash > 0 ? af.name.slice(slash + 1) : af.name;
          out.set(key, new PackageURL(types[af.ecosystem]!, ns, name, version).toString());
        }
      } catch {
        // A name no purl can carry: left out.
      }
    }
  return [...out.values()];
}

/** Every file and directory below `dir` (and itself) owned by the workspace's user, as a clone's tree is. */
async function ownTree(ws: Workspace, dir: string): Promise<void> {
  if (!ws.runAs) return;
  await chown(dir, ws.runAs.uid, ws.runAs.gid);
  for (const entry of await readdir(dir, { recursive: true }))
    await chown(join(dir, entry), ws.runAs.uid, ws.runAs.gid);
}

export const fixtures: ServiceFixtures["scanner-runner"] = {
  inventoryArtefactOf: (sbom, opts = {}) =>
    encodeInventoryArtefact(readSbom(sbom), { scopeFilter: opts.scopeFilter ?? true }).bytes,

  async startUpSettled(orm, timeoutMs = 60_000) {
    // The start-up work that reaches projects on its own: the advisory import's re-match and the KEV and EPSS
    // snapshot loads pushed to findings. Both queues are filled in the transaction that stores the data.
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await orm.em.getConnection().execute<{ imported: boolean; loaded: string; pending: string }[]>(
        `select exists (select 1 from vulndb_imports where last_succeeded_at is not null) as imported,
                (select count(*) from feed_status where feed in ('kev', 'epss') and snapshot_date is not null) as loaded,
                (select count(*) from vulndb_rematch_packages)
                  + (select count(*) from vulndb_pending_enrichment_updates) as pending`,
      );
      if (row!.imported && Number(row!.loaded) === 2 && Number(row!.pending) === 0) return;
      if (Date.now() > deadline)
        throw new Error(`the scanner-runner's start-up work did not settle: ${JSON.stringify(row)}`);
      await delay(100);
    }
  },

  async startUpProgress(orm) {
    const [row] = await orm.em.getConnection().execute<{ imported: boolean; pending: string }[]>(
      `select exists (select 1 from vulndb_imports where last_succeeded_at is not null) as imported,
              (select count(*) from vulndb_rematch_packages) as pending`,
    );
    return { imported: row!.imported, rematchPending: Number(row!.pending) };
  },

  async vulnerabilityMatcher(opts = {}) {
    const { AdvisoryIndex } = await import("../src/domain/vulndb/matcher.ts");
    const { scanVerdictsOf } = await import("../src/domain/vulndb/scan-verdicts.ts");
    const { vulnerabilityMessage } = await import("../src/clients/vulnerability-matches.ts");
    const { VENDORED_SNAPSHOT } = await import("../src/vulndb/advisory-database.ts");
    const advisories = await vendoredAdvisories();
    const kept = opts.keep ? advisories.filter((_, i) => opts.keep!(i)) : advisories;
    const started = performance.now();
    const index = new AdvisoryIndex(kept);
    const buildMs = performance.now() - started;
    const noEnrichment = { epss: new Map(), kev: new Map() };
    return {
      advisoriesDir: VENDORED_SNAPSHOT,
      advisoryCount: index.advisoryCount,
      packageCount: index.packageCount,
      buildMs,
      samplePurls: () => samplePurlsOf(advisories),
      match: (pkg) => index.match(pkg),
      clearVerdicts: () => index.clearVerdicts(),
      scanMatches(purls) {
        const r = scanVerdictsOf(index, purls);
        return {
          vulnerabilities: r.vulnerabilities.map((v) => vulnerabilityMessage(v, noEnrichment)),
          verdicts: r.verdicts,
          findingCount: r.verdicts.reduce((sum, v) => sum + v.vulnerabilities.length, 0),
        };
      },
    };
  },

  sbomPurls: (sbom) => readSbom(sbom).components.flatMap((c) => (c.purl ? [c.purl] : [])),

  async publishSbomJob(kafka, { scanId, projectId, sbom }) {
    const { publishJobs, scanJob } = await import("./support/scan-jobs.ts");
    const job = scanJob({
      lane: "manual",
      scanId,
      projectId,
      sbom: { $typeName: "sca.events.v1.ScanArtefact", ...sbom },
    });
    await publishJobs(kafka, "manual", [job]);
  },

  async forgetScancodeResults(orm) {
    await orm.em.getConnection().execute("delete from scancode_file_results");
  },

  async sandboxTree(source) {
    const { openWorkspace } = await import("../src/sandbox/workspace.ts");
    const { runCdxgen } = await import("../src/tools/cdxgen.ts");
    const { treeLicenses } = await import("../src/events/first-party-licenses-stage.ts");
    const ws = await openWorkspace("", SANDBOX_UID);
    if (typeof source === "string") await cp(source, ws.tree, { recursive: true, dereference: true });
    else for (const [name, data] of Object.entries(source)) await writeFile(join(ws.tree, name), data);
    await ownTree(ws, ws.tree);
    const never = new AbortController().signal;
    return {
      dir: ws.tree,
      cdxgen: (opts) =>
        runCdxgen(
          ws,
          { ...opts, outputMaxBytes: OUTPUT_MAX_BYTES, sbomMaxBytes: SBOM_MAX_BYTES },
          () => undefined,
          never,
        ),
      async licenses(orm, { bin, timeoutMs, memoryMb, maxFiles, maxDetections }) {
        const scancode = {
          bin,
          timeoutMs,
          memoryMb,
          outputMaxBytes: OUTPUT_MAX_BYTES,
          resultMaxBytes: SCANCODE_RESULT_MAX_BYTES,
        };
        const found = await treeLicenses(orm, { scancode, maxFiles, maxDetections }, ws, () => undefined, never);
        return {
          status: found.status,
          message: found.message,
          fileCount: found.fileCount,
          scannedFileCount: found.scannedFileCount,
          detectionCount: found.detections.length,
        };
      },
      remove: () => ws.remove(),
    };
  },
};
