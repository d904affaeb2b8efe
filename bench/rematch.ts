// Findings after new data, without a portal (real PostgreSQL, Kafka and Redis, as the tests use them; run as
// `node bench/rematch.ts` with scripts/env.sh's environment, or through bench/run.sh):
// - a full re-match of 100 projects of 1,000 components after an advisory refresh (target ≤ 30 s): identity and
//   projects run in this process; 100 projects get an inventory of 1,000 real package names of the vendored
//   advisory set (their versions where advisories start) and their findings from an older database (the vendored
//   advisories without every tenth). Then a scanner-runner starts in a process of its own on a fresh schema: its
//   first import (the whole vendored set, every advisory changed) queues every package name, and the clock runs from
//   the queue filling to it being empty (every held version matched and recorded, findings dated, events queued).
// - a 10,000-component SBOM (real vulnerable package names) from stored upload to findings queryable (target ≤ 5 s):
//   the job is published onto the runner's lane as the orchestrator would (the gateway's upload and scan creation
//   are not in this clock: bench/ingest.ts measures them, about 0.2 s), then projects' finding list is polled every
//   20 ms until its total is the count the same advisories give.
// - the runner's peak resident memory (sampled every 50 ms, and VmHWM) through both (target ≤ 300 MB).
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { create } from "@bufbuild/protobuf";
import { sizeDelimitedEncode } from "@bufbuild/protobuf/wire";
import { PackageURL } from "packageurl-js";
import { bytesSource, DirectoryArtefactStore } from "@sca/artefacts";
import { openDatabase } from "@sca/db";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { ScanArtefactSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { InventoryRecordSchema, InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { VulnerabilityFindingService } from "@sca/proto/sca/projects/v1/vulnerability_findings_pb.ts";
import { VulnerabilityMatchService } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import { callAs, startService, testServers, uniqueName } from "@sca/testkit";
import { vulnerabilityMessage } from "../services/scanner-runner/src/clients/vulnerability-matches.ts";
import { readAdvisory, type Advisory } from "../services/scanner-runner/src/domain/vulndb/advisory.ts";
import { AdvisoryIndex } from "../services/scanner-runner/src/domain/vulndb/matcher.ts";
import { scanVerdictsOf } from "../services/scanner-runner/src/domain/vulndb/scan-verdicts.ts";
import { VENDORED_SNAPSHOT } from "../services/scanner-runner/src/vulndb/advisory-database.ts";
import { advisoryDocuments } from "../services/scanner-runner/src/vulndb/advisory-source.ts";
import { printTable } from "./table.ts";

const PROJECTS = Number(process.env.BENCH_REMATCH_PROJECTS ?? 100);
const COMPONENTS = 1000;
const SBOM_COMPONENTS = 10_000;
const TARGET_REMATCH_MS = 30_000;
const TARGET_SBOM_MS = 5000;
const TARGET_RSS_MIB = 300;

/** A purl per (ecosystem, name) of the vendored advisories, at a version where an advisory starts (or 0.0.1). */
function poolOf(advisories: Advisory[]): string[] {
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
      const raw = JSON.stringify(af);
      const version = /"introduced":"([^"0][^"]*)"/.exec(raw)?.[1] ?? "0.0.1";
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

/** A deterministic pseudo-random pick of `n` distinct purls. */
function pick(pool: string[], n: number, seed: number): string[] {
  let s = seed >>> 0 || 1;
  const chosen = new Set<number>();
  while (chosen.size < Math.min(n, pool.length)) {
    s = (s * 1664525 + 1013904223) >>> 0;
    chosen.add(s % pool.length);
  }
  return [...chosen].map((i) => pool[i]!);
}

function artefactOf(purls: string[]): Uint8Array {
  const record = (r: Parameters<typeof create<typeof InventoryRecordSchema>>[1]) =>
    sizeDelimitedEncode(InventoryRecordSchema, create(InventoryRecordSchema, r));
  return Buffer.concat([
    record({
      record: { case: "document", value: { format: "cyclonedx-json", specVersion: "1.6", graphRooted: false } },
    }),
    ...purls.map((purl) => {
      const p = PackageURL.fromString(purl);
      return record({
        record: { case: "component", value: { key: purl, name: p.name, version: p.version ?? "", purl } },
      });
    }),
  ]);
}

const advisories: Advisory[] = [];
for await (const doc of advisoryDocuments(VENDORED_SNAPSHOT, new AbortController().signal))
  if (doc.text)
    try {
      advisories.push(readAdvisory(JSON.parse(doc.text)));
    } catch {
      // Skipped as the import skips it.
    }
const pool = poolOf(advisories);
const older = new AdvisoryIndex(advisories.filter((_, i) => i % 10 !== 0));
const full = new AdvisoryIndex(advisories);
const dir = await mkdtemp(join(tmpdir(), "sca-bench-rematch-"));
const store = new DirectoryArtefactStore(dir);
const identity = await startService("identity", {
  env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
});
const projects = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url!, ARTEFACT_DIR: dir } });
// Caller tokens are short-lived: signed per call.
const runnerCaller = () => callAs.service("scanner-runner");
const admin = () => callAs.superAdmin(randomUUID());
const slug = `bench-${randomUUID().slice(0, 8)}`;
const { team } = await identity.client(DirectoryService).createTeam({ name: slug, slug }, await admin());
const developer = () =>
  callAs.user(randomUUID(), {
    memberships: [{ team_id: team!.id, organization_id: team!.organizationId!, role: "developer" }],
  });
const noEnrichment = { epss: new Map(), kev: new Map() };

async function project(i: number): Promise<string> {
  const { project: p } = await projects
    .client(ProjectService)
    .createProject({ project: { teamId: team!.id, name: `Re-match ${i}`, slug: `${slug}-${i}` } }, await developer());
  return p!.id;
}

console.error(`pool: ${pool.length} package names; ${PROJECTS} projects of ${COMPONENTS} components being made`);
let olderFindings = 0;
for (let i = 0; i < PROJECTS; i++) {
  const projectId = await project(i);
  const purls = pick(pool, COMPONENTS, i + 1);
  const bytes = artefactOf(purls);
  const stored = await store.put(`inventory/${randomUUID()}.pb`, bytesSource(bytes), { maxBytes: 64 * 2 ** 20 });
  const scanId = randomUUID();
  await projects.client(InventoryService).ingestInventory(
    {
      scanId,
      projectId,
      attempt: 1,
      ref: "",
      inventory: create(ScanArtefactSchema, {
        key: stored.key,
        sizeBytes: BigInt(stored.sizeBytes),
        sha256: stored.sha256,
      }),
    },
    await runnerCaller(),
  );
  const r = scanVerdictsOf(older, purls);
  const recorded = await projects.client(VulnerabilityMatchService).recordScanMatches(
    {
      projectId,
      scanId,
      databaseVersion: "bench-older",
      vulnerabilities: r.vulnerabilities.map((v) => vulnerabilityMessage(v, noEnrichment)),
      verdicts: r.verdicts,
    },
    await runnerCaller(),
  );
  olderFindings += recorded.findingCount;
}

const schema = uniqueName("scanner_runner_bench");
const child = spawn(process.execPath, [new URL("./offline/runner-process.ts", import.meta.url).pathname], {
  env: {
    ...process.env,
    // As scripts/stack/portal.sh starts every service.
    NODE_OPTIONS: process.env.NODE_OPTIONS ?? "--max-semi-space-size=1",
    BENCH_RUNNER_SCHEMA: schema,
    BENCH_ARTEFACT_DIR: dir,
    BENCH_PROJECTS_URL: projects.url!,
  },
  stdio: ["pipe", "pipe", "inherit"],
});
const lines = createInterface({ input: child.stdout });
const waiting: { event: string; resolve: (o: Record<string, unknown>) => void }[] = [];
const seen: Record<string, unknown>[] = [];
lines.on("line", (line) => {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return;
  }
  seen.push(o);
  const w = waiting.findIndex((x) => x.event === o.event);
  if (w >= 0) waiting.splice(w, 1)[0]!.resolve(o);
});
const next = (event: string) =>
  new Promise<Record<string, unknown>>((resolve) => {
    const already = seen.find((o) => o.event === event);
    if (already) {
      seen.splice(seen.indexOf(already), 1);
      resolve(already);
    } else waiting.push({ event, resolve });
  });

const started0 = await next("started");
const queued = await next("queued");
const drained = await next("drained");
const rematchMs = Number(drained.at) - Number(queued.at);
const count = async (projectId: string) =>
  Number(
    (
      await projects
        .client(VulnerabilityFindingService)
        .listVulnerabilityFindings({ projectId, anchor: {}, limit: 1 }, await admin())
    ).total,
  );

// The 10,000-component SBOM: the pool's package names at several versions (the pool alone is a few thousand).
const versioned = ["", "1.0.0", "2.0.0", "3.0.0", "4.0.0"].flatMap((v) =>
  pool.map((purl) => (v ? `${purl.slice(0, purl.lastIndexOf("@"))}@${v}` : purl)),
);
const sbomPurls = pick(versioned, SBOM_COMPONENTS, 424242);
const expected = (() => {
  const r = scanVerdictsOf(full, sbomPurls);
  const byPkg = new Map(
    r.verdicts.map((v) => [`${v.package.ecosystem}\u0000${v.package.name}\u0000${v.package.version}`, v]),
  );
  let n = 0;
  // One finding per component and vulnerability (the SBOM's components are distinct package versions).
  for (const v of byPkg.values()) n += v.vulnerabilities.length;
  return n;
})();
const sbom = Buffer.from(
  JSON.stringify({
    bomFormat: "CycloneDX",
    specVersion: "1.6",
    version: 1,
    components: sbomPurls.map((purl) => {
      const p = PackageURL.fromString(purl);
      return { type: "library", "bom-ref": purl, name: p.name, version: p.version, purl };
    }),
  }),
);
const sbomProject = await project(PROJECTS);
const started = Date.now();
const upload = await store.put(`uploads/${sbomProject}/${randomUUID()}`, bytesSource(sbom), { maxBytes: 64 * 2 ** 20 });
child.stdin.write(`scan ${sbomProject} ${upload.key} ${upload.sizeBytes} ${upload.sha256}\n`);
let total = 0;
while (Date.now() - started < 120_000) {
  total = await count(sbomProject);
  if (total >= expected && total > 0) break;
  await new Promise((r) => setTimeout(r, 20));
}
const sbomMs = Date.now() - started;
child.stdin.write("memory\n");
const memory = await next("memory");
child.stdin.write("stop\n");
await new Promise((r) => child.once("exit", r));

printTable(
  `Full re-match after an advisory refresh (${PROJECTS} projects × ${COMPONENTS} components; target ≤ ${TARGET_REMATCH_MS / 1000} s)`,
  [
    {
      "package names queued": Number(queued.packages),
      "findings before": olderFindings,
      "re-match ms": rematchMs,
      "runner peak RSS MiB": Number(drained.peakRssMiB).toFixed(0),
      "≤ 30 s": rematchMs <= TARGET_REMATCH_MS ? "met" : "MISSED",
    },
  ],
);
printTable(`10,000-component SBOM, stored upload to findings queryable (target ≤ ${TARGET_SBOM_MS / 1000} s)`, [
  {
    components: SBOM_COMPONENTS,
    "findings expected": expected,
    "findings listed": total,
    ms: sbomMs,
    "≤ 5 s": sbomMs <= TARGET_SBOM_MS && total === expected ? "met" : "MISSED",
  },
]);
printTable(`scanner-runner resident memory (MiB; target ≤ ${TARGET_RSS_MIB})`, [
  {
    "RSS when started": Number(started0.rssMiB).toFixed(0),
    "peak RSS sampled (50 ms), whole run": Math.max(Number(drained.peakRssMiB), Number(memory.peakRssMiB)).toFixed(0),
    "VmHWM at the end": Number(memory.hwmMiB).toFixed(0),
    "≤ 300 MB": Number(memory.hwmMiB) * 1.048576 <= TARGET_RSS_MIB ? "met" : "MISSED",
  },
]);
// The runner's schema (identity's and projects' go with their close()).
const db = await openDatabase({ url: testServers().databaseUrl, schema: "public", entities: [], migrations: [] });
await db.em.getConnection().execute(`drop schema if exists "${schema}" cascade`);
await db.close();
await projects.close();
await identity.close();
await rm(dir, { recursive: true, force: true });
process.exit(0);
