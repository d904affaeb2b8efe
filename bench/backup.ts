// Backup and restore of a portal holding many projects and findings (issue 27; target: each at most 2 minutes with
// memory flat), without a portal (real PostgreSQL, Kafka and Redis, as the tests use them; run as
// `node bench/backup.ts` with scripts/env.sh's environment, or through bench/run.sh):
// - identity, policy, projects and admin run in this process (the test kit's startService); BENCH_BACKUP_PROJECTS
//   projects (100) of one team are written into projects' tables with COPY by the test kit's projects fixture
//   `portfolio` (as bench/dashboards.ts seeds; shaped as ingestion and the runner's matches write them; in a process
//   of its own, bench/backup-seed.ts, so that its memory is not counted here), each with
//   BENCH_BACKUP_COMPONENTS components (1,000) and BENCH_BACKUP_FINDINGS findings (10,000: the issue's 1,000,000),
//   and the artefact store gets one inventory artefact a project (what a scan leaves there).
// - a manual backup through admin's BackupService, timed from the request to its task's success; then some findings
//   deleted, the archive streamed out (DownloadBackup) into the artefact store, and a restore of it timed the same
//   way. The rows of every table of the four schemas are counted before the backup and after the restore and must be
//   equal, but for admin's audit log, which holds two more: the backup's own entry (taken into the backup) and the
//   restore's (appended after it).
// - memory: this process's resident set (every service in it) sampled every 50 ms, and the largest resident set of
//   its child processes (pg_dump, pg_restore, tar) read from /proc, against the figures before the backup.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { readdir, readFile, mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { column, rawQuery, rawStatement } from "@sca/db";
import { BackupService } from "@sca/proto/sca/admin/v1/backups_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { callAs, startService, type PortfolioSeed } from "@sca/testkit";
import { printTable } from "./table.ts";
import { artefactOf, pick } from "./vulnerable-sbom.ts";

const PROJECTS = Number(process.env.BENCH_BACKUP_PROJECTS ?? 100);
const COMPONENTS = Number(process.env.BENCH_BACKUP_COMPONENTS ?? 1000);
const FINDINGS = Number(process.env.BENCH_BACKUP_FINDINGS ?? 10_000);
const TARGET_MS = 120_000;
const MiB = 1024 * 1024;
// A full collection before the figure taken as "before", so that it is the services' live memory, not whatever
// garbage the start-up and the row counts left.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

/** Resident set in bytes of a process (VmRSS), or 0 once it is gone. */
async function rssOf(pid: number | "self"): Promise<number> {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Children of this process (pg_dump, pg_restore, tar), from /proc. */
async function children(): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
    // Fields after the command's closing parenthesis: state, then the parent's pid.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid === process.pid) pids.push(Number(name));
  }
  return pids;
}

/** Samples memory every 50 ms until stop(): the peak of this process and of any one child. */
function sampleMemory() {
  let self = 0;
  let child = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      self = Math.max(self, await rssOf("self"));
      for (const pid of await children()) child = Math.max(child, await rssOf(pid));
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return { self, child };
  };
}

const root = await mkdtemp(join(tmpdir(), "sca-bench-backup-"));
const artefactDir = join(root, "artefacts");
const store = new DirectoryArtefactStore(artefactDir);
const identity = await startService("identity", {
  env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
});
const policy = await startService("policy", { env: { IDENTITY_RPC_URL: identity.url! } });
const projects = await startService("projects", {
  env: { IDENTITY_RPC_URL: identity.url!, POLICY_RPC_URL: policy.url!, ARTEFACT_DIR: artefactDir },
});
const admin = await startService("admin", {
  env: { ARTEFACT_DIR: artefactDir, BACKUP_DIR: join(root, "backups"), BACKUP_AUTO_EVERY_HOURS: "0" },
  seams: { schemas: { identity: identity.schema, policy: policy.schema, projects: projects.schema } },
});
const superAdmin = () => callAs.superAdmin(randomUUID());
const slug = `bench-${randomUUID().slice(0, 8)}`;
const { team } = await identity.client(DirectoryService).createTeam({ name: slug, slug }, await superAdmin());

console.error(
  `${PROJECTS} projects of ${COMPONENTS} components and ${FINDINGS} findings being written (load ${load()})`,
);
const startedRss = await rssOf("self");
const loadStarted = Date.now();
const seed: PortfolioSeed = {
  teams: [{ id: team!.id, organizationId: team!.organizationId ?? null }],
  projects: PROJECTS,
  componentsPerProject: COMPONENTS,
  findingsPerProject: FINDINGS,
};
const seeder = spawn(process.execPath, [join(import.meta.dirname, "backup-seed.ts")], {
  stdio: ["pipe", "pipe", "inherit"],
});
seeder.stdin.end(JSON.stringify({ schema: projects.schema, seed }));
const [seedOutput, [seedExit]] = await Promise.all([text(seeder.stdout), once(seeder, "close")]);
if (seedExit !== 0) throw new Error(`bench/backup-seed.ts exited with ${seedExit}`);
const seeded = JSON.parse(seedOutput) as { projectIds: string[]; packageNames: string[] };
const purlPool = seeded.packageNames.flatMap((name) => [1, 2, 3, 4].map((v) => `pkg:npm/${name}@${v}.0.0`));
for (let i = 0; i < PROJECTS; i++) {
  const bytes = artefactOf(pick(purlPool, COMPONENTS, i + 1));
  await store.put(`inventory/${randomUUID()}.pb`, Readable.from([bytes]), { maxBytes: bytes.byteLength });
}
const loadSeconds = (Date.now() - loadStarted) / 1000;
console.error(`written in ${loadSeconds.toFixed(0)} s (load ${load()})`);

const em = () => projects.orm.em.fork();
const schemas = [identity.schema, policy.schema, projects.schema, admin.schema];
const auditTable = `${admin.schema}.audit_entries`;

/** Rows of every table of the four schemas (admin's backup_tasks aside: no backup holds it), by schema.table. */
async function rowCounts(): Promise<Map<string, number>> {
  const tables = await rawQuery(
    em(),
    `select table_schema || '.' || table_name as name from information_schema.tables
      where table_schema in (${schemas.map(() => "?").join(", ")}) and table_type = 'BASE TABLE' order by 1`,
    schemas,
    { name: column.text },
  );
  const counts = new Map<string, number>();
  for (const { name } of tables) {
    if (name === `${admin.schema}.backup_tasks`) continue;
    const [schema, table] = name.split(".");
    const [row] = await rawQuery(em(), `select count(*) as n from "${schema}"."${table}"`, [], { n: column.integer });
    counts.set(name, row!.n);
  }
  return counts;
}

// The audit events of the team's creation reach admin through Kafka: counted once they stopped arriving.
let before = await rowCounts();
for (;;) {
  await new Promise((r) => setTimeout(r, 2000));
  const again = await rowCounts();
  const settled = again.get(auditTable) === before.get(auditTable);
  before = again;
  if (settled) break;
}
const findings = before.get(`${projects.schema}.vulnerability_findings`)!;
console.error(`${findings} findings, ${before.get(`${projects.schema}.inventory_components`)} components`);

const backups = admin.client(BackupService);

async function finished(taskId: string): Promise<void> {
  for (;;) {
    const { task } = await backups.getBackupTask({ taskId }, await superAdmin());
    if (task!.state === "succeeded") return;
    if (task!.state === "failed") throw new Error(`task failed: ${task!.error}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

gc();
const idleRss = await rssOf("self");
const idleHeap = process.memoryUsage();
let stop = sampleMemory();
let started = Date.now();
const { name, taskId } = await backups.createBackup({}, await superAdmin());
await finished(taskId);
const backupMs = Date.now() - started;
const backupMemory = await stop();
const [listed] = (await backups.listBackups({}, await superAdmin())).items;
const loadAfterBackup = load();

// Changed after the backup: the first project's findings and triage gone, which the restore must bring back.
for (const table of ["vulnerability_findings", "finding_triage"])
  await rawStatement(em(), `delete from ${table} where project_id = ?`, [seeded.projectIds[0]]);

stop = sampleMemory();
started = Date.now();
const archiveKey = `restore-uploads/${randomUUID()}`;
async function* chunks() {
  for await (const part of backups.downloadBackup({ name }, await superAdmin())) yield part.chunk;
}
const stored = await store.put(archiveKey, Readable.from(chunks()), { maxBytes: 1024 ** 4 });
const downloadMs = Date.now() - started;
const downloadMemory = await stop();
stop = sampleMemory();
started = Date.now();
const restore = await backups.startRestore(
  { archiveKey, archiveSizeBytes: BigInt(stored.sizeBytes) },
  await superAdmin(),
);
await finished(restore.taskId);
const restoreMs = Date.now() - started;
const restoreMemory = await stop();
const loadAfterRestore = load();

// The restore's check: every table as before the backup, the audit log two entries longer.
const after = await rowCounts();
const differing: Record<string, string | number>[] = [];
for (const name of new Set([...before.keys(), ...after.keys()])) {
  const expected = (before.get(name) ?? 0) + (name === auditTable ? 2 : 0);
  if (after.get(name) !== expected)
    differing.push({ table: name, before: before.get(name) ?? "absent", expected, after: after.get(name) ?? "absent" });
}

const mib = (bytes: number) => Math.round(bytes / MiB);
console.log(
  `\nwritten with COPY in ${loadSeconds.toFixed(0)} s; load average (1, 5, 15 min) after the backup ${loadAfterBackup}, ` +
    `after the restore ${loadAfterRestore}; node RSS after start-up ${mib(startedRss)} MiB, before the backup ` +
    `after a full GC ${mib(idleRss)} (V8 heap ${mib(idleHeap.heapUsed)} used of ${mib(idleHeap.heapTotal)}, ` +
    `external ${mib(idleHeap.external)})`,
);
printTable(`backup and restore: ${PROJECTS} projects, ${findings} findings (target: each ≤ ${TARGET_MS / 1000} s)`, [
  {
    step: "backup (pg_dump + objects + manifest)",
    ms: backupMs,
    "size MiB": mib(Number(listed!.sizeBytes)),
    "node RSS before → peak MiB": `${mib(idleRss)} → ${mib(backupMemory.self)}`,
    "largest child RSS MiB": mib(backupMemory.child),
    met: backupMs <= TARGET_MS ? "yes" : "no",
  },
  {
    step: "download (tar.gz stream into the store)",
    ms: downloadMs,
    "size MiB": mib(stored.sizeBytes),
    "node RSS before → peak MiB": `${mib(idleRss)} → ${mib(downloadMemory.self)}`,
    "largest child RSS MiB": mib(downloadMemory.child),
    met: "",
  },
  {
    step: "restore (checks + objects + pg_restore)",
    ms: restoreMs,
    "size MiB": mib(stored.sizeBytes),
    "node RSS before → peak MiB": `${mib(idleRss)} → ${mib(restoreMemory.self)}`,
    "largest child RSS MiB": mib(restoreMemory.child),
    met: restoreMs <= TARGET_MS ? "yes" : "no",
  },
]);
if (differing.length) printTable("rows after the restore not as before the backup", differing);
else console.log(`\nrows after the restore: all ${after.size} tables as before the backup (audit log +2)`);

await admin.close();
await projects.close();
await policy.close();
await identity.close();
await rm(root, { recursive: true, force: true });
if (differing.length) process.exitCode = 1;
