// What signing adds to a 10,000-component scan (target: at most 300 ms), without a portal (real PostgreSQL, Kafka
// and Redis, as the tests use them; `node bench/sbom-signing.ts` with scripts/env.sh's environment, or through
// bench/run.sh): identity and projects run in this process, projects with an encrypted ECDSA P-256 key and its
// sealed password (docs/signing.md). Each run ingests a generated 10,000-component CycloneDX inventory as a new scan,
// then publishes its ScanStateChanged `succeeded` as the scan-orchestrator's relay does, and polls (every 5 ms) two
// things the event starts at once: the scan-feed group's known_scans row (the same event's delivery and apply, no
// signing) and SbomSigningService answering the signature (export written, key read and decrypted, signature and
// attestation made, row stored). Signing runs after the scan is succeeded, apart from it, so what it adds is the
// second minus the first. With a key configured, ingestion writes the export once, from the rows it holds, and keeps
// it for the signer (docs/signing.md, "The copy kept for signing"): that write (the `ms` projects logs with "SBOM
// export kept for signing") is added to what signing adds, since the scan's ingestion waits for it. How it splits: the
// export written from the database (SbomExportService read to the end, timed here; what the signer did before the
// copy), the copy at ingestion and the key read, signature and attestation (the `ms` projects logs with "SBOM
// signed", read from its log).
// Knobs: BENCH_RUNS (default 5), BENCH_SIGNING_COMPONENTS (default 10,000).
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { column, rawQuery } from "@sca/db";
import { createLogger } from "@sca/log";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { SbomExportService } from "@sca/proto/sca/projects/v1/sbom_pb.ts";
import { SbomSigningService } from "@sca/proto/sca/projects/v1/sbom_signing_pb.ts";
import { seal, secretBoxKey } from "@sca/secret-box";
import {
  callAs,
  fixturesOf,
  generateCycloneDxBom,
  ingestArtefact,
  publishScanState,
  startService,
  TEST_SECRET,
} from "@sca/testkit";
import { percentile, printTable } from "./table.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const COMPONENTS = Number(process.env.BENCH_SIGNING_COMPONENTS ?? 10_000);
const TARGET_MS = 300;

const dir = await mkdtemp(join(tmpdir(), "sca-bench-signing-"));
const keyPath = join(dir, "signing.key");
const password = randomUUID();
await writeFile(
  keyPath,
  generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({
    type: "pkcs8",
    format: "pem",
    cipher: "aes-256-cbc",
    passphrase: password,
  }),
);
const identity = await startService("identity", {
  env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
});
/** The "SBOM signed" and "SBOM export kept for signing" lines' `ms`, in order; errors still go to stderr. */
const signingMs: number[] = [];
const keptMs: number[] = [];
const projectsLog = createLogger("projects", "INFO", {
  write(line: string) {
    const entry = JSON.parse(line) as { msg?: string; ms?: number; level?: string };
    if (entry.msg === "SBOM signed" && entry.ms !== undefined) signingMs.push(entry.ms);
    else if (entry.msg === "SBOM export kept for signing" && entry.ms !== undefined) keptMs.push(entry.ms);
    else if (entry.level === "error") process.stderr.write(line);
  },
});
const projects = await startService("projects", {
  logger: projectsLog,
  env: {
    IDENTITY_RPC_URL: identity.url!,
    ARTEFACT_DIR: dir,
    SIGNING_KEY_PATH: keyPath,
    SIGNING_KEY_PASSWORD_ENCRYPTED: seal(password, secretBoxKey(TEST_SECRET, "signing-key-password", "sca-projects")),
  },
});
const store = new DirectoryArtefactStore(dir);
const slug = `bench-${randomUUID().slice(0, 8)}`;
const { team } = await identity
  .client(DirectoryService)
  .createTeam({ name: slug, slug }, await callAs.superAdmin(randomUUID()));
const developer = await callAs.user(randomUUID(), {
  memberships: [{ team_id: team!.id, organization_id: team!.organizationId!, role: "developer" }],
});
const producer = projects.kafka!.producer();
await producer.connect();
const artefact = (await fixturesOf("scanner-runner")).inventoryArtefactOf(
  Buffer.from(JSON.stringify(generateCycloneDxBom({ components: COMPONENTS }))),
);

async function until(check: () => Promise<boolean>): Promise<number> {
  for (;;) {
    if (await check()) return performance.now();
    await new Promise((r) => setTimeout(r, 5));
  }
}

const known = async (scanId: string) =>
  (
    await rawQuery(projects.orm.em.fork(), "select count(*) as n from known_scans where scan_id = ?", [scanId], {
      n: column.integer,
    })
  )[0]!.n > 0;

const signed = async (projectId: string) => {
  try {
    await projects.client(SbomSigningService).getSbomSigning({ projectId }, developer);
    return true;
  } catch {
    return false;
  }
};

async function run(i: number): Promise<{ feed: number; signed: number; exported: number; bytes: number }> {
  const { project } = await projects
    .client(ProjectService)
    .createProject({ project: { teamId: team!.id, name: `Signing ${i}`, slug: `${slug}-${i}` } }, developer);
  const projectId = project!.id;
  const scanId = await ingestArtefact(projects.client(InventoryService), store, projectId, artefact);
  const start = performance.now();
  await publishScanState(projects, producer, { scanId, projectId, teamId: team!.id });
  const [feedAt, signedAt] = await Promise.all([until(() => known(scanId)), until(() => signed(projectId))]);
  const exportStart = performance.now();
  let bytes = 0;
  for await (const part of projects
    .client(SbomExportService)
    .exportSbom({ projectId, format: "cyclonedx-json", anchor: { scanId } }, developer))
    if (part.part.case === "chunk") bytes += part.part.value.length;
  return { feed: feedAt - start, signed: signedAt - start, exported: performance.now() - exportStart, bytes };
}

console.error(`signing ${RUNS} scans of ${COMPONENTS} components (one warm-up run first)`);
await run(0);
signingMs.length = 0;
keptMs.length = 0;
const runs = [];
for (let i = 1; i <= RUNS; i++) runs.push(await run(i));
const median = (xs: number[]) => percentile(xs, 50);
// The copy's write at ingestion is on the scan's path: counted in what signing adds (0 when none was logged).
const added = runs.map((r, i) => r.signed - r.feed + (keptMs[i] ?? 0));
printTable(
  `SBOM signing of a ${COMPONENTS.toLocaleString("en")}-component scan (${RUNS} runs, target ${TARGET_MS} ms)`,
  [
    {
      "export bytes": runs[0]!.bytes,
      "event to scan-feed applied p50 (ms)": Math.round(median(runs.map((r) => r.feed))),
      "event to signature served p50 (ms)": Math.round(median(runs.map((r) => r.signed))),
      "signing adds p50 (ms)": Math.round(median(added)),
      "signing adds max (ms)": Math.round(Math.max(...added)),
      "export from the database p50 (ms)": Math.round(median(runs.map((r) => r.exported))),
      "copy kept at ingestion p50 (ms)": keptMs.length ? Math.round(median(keptMs)) : "none",
      "key, signature, attestation p50 (ms)": Math.round(median(signingMs)),
      met: median(added) <= TARGET_MS ? "yes" : "no",
    },
  ],
);

await producer.disconnect();
await projects.close();
await identity.close();
await rm(dir, { recursive: true, force: true });
