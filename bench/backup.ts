// Backup and restore of a portal holding many projects and findings (issue 27; target: each at most 2 minutes with
// memory flat), without a portal (real PostgreSQL, Kafka and Redis, as the tests use them; run as
// `node bench/backup.ts` with scripts/env.sh's environment, or through bench/run.sh):
// - identity, policy, projects and admin run in this process (the test kit's startService); BENCH_BACKUP_PROJECTS
//   projects (100) each get an inventory of BENCH_BACKUP_COMPONENTS real vulnerable package versions (1,000) and
//   their findings as the scanner-runner hands them over (its fixtures' matcher over the vendored advisories), so
//   the findings count follows from those two (print below; the 1,000,000 needs about 10,000 a project).
// - a manual backup through admin's BackupService, timed from the request to its task's success; then the archive
//   streamed out (DownloadBackup) into the artefact store, and a restore of it timed the same way.
// - memory: this process's resident set (every service in it) sampled every 50 ms, and the largest resident set of
//   its child processes (pg_dump, pg_restore, tar) read from /proc, against the figures before the backup.
import { randomUUID } from "node:crypto";
import { readdir, readFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { BackupService } from "@sca/proto/sca/admin/v1/backups_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { VulnerabilityMatchService } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";
import { callAs, fixturesOf, ingestArtefact, startService } from "@sca/testkit";
import { printTable } from "./table.ts";
import { artefactOf, pick } from "./vulnerable-sbom.ts";

const PROJECTS = Number(process.env.BENCH_BACKUP_PROJECTS ?? 100);
const COMPONENTS = Number(process.env.BENCH_BACKUP_COMPONENTS ?? 1000);
const TARGET_MS = 120_000;
const MiB = 1024 * 1024;

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

const runnerFixtures = await fixturesOf("scanner-runner");
const matcher = await runnerFixtures.vulnerabilityMatcher();
const pool = matcher.samplePurls();
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
const runnerCaller = () => callAs.service("scanner-runner");
const slug = `bench-${randomUUID().slice(0, 8)}`;
const { team } = await identity.client(DirectoryService).createTeam({ name: slug, slug }, await superAdmin());
const developer = () =>
  callAs.user(randomUUID(), {
    memberships: [{ team_id: team!.id, organization_id: team!.organizationId!, role: "developer" }],
  });

console.error(`${PROJECTS} projects of ${COMPONENTS} components being made`);
let findings = 0;
const loadStarted = Date.now();
for (let i = 0; i < PROJECTS; i++) {
  const { project } = await projects
    .client(ProjectService)
    .createProject({ project: { teamId: team!.id, name: `Backup ${i}`, slug: `${slug}-${i}` } }, await developer());
  const purls = pick(pool, COMPONENTS, i + 1);
  const scanId = await ingestArtefact(projects.client(InventoryService), store, project!.id, artefactOf(purls), {
    caller: await runnerCaller(),
  });
  const { vulnerabilities, verdicts } = matcher.scanMatches(purls);
  const recorded = await projects
    .client(VulnerabilityMatchService)
    .recordScanMatches(
      { projectId: project!.id, scanId, databaseVersion: "bench", vulnerabilities, verdicts },
      await runnerCaller(),
    );
  findings += recorded.findingCount;
  if (i % 10 === 9) console.error(`${i + 1} projects, ${findings} findings (${Date.now() - loadStarted} ms)`);
}

const backups = admin.client(BackupService);

async function finished(taskId: string): Promise<void> {
  for (;;) {
    const { task } = await backups.getBackupTask({ taskId }, await superAdmin());
    if (task!.state === "succeeded") return;
    if (task!.state === "failed") throw new Error(`task failed: ${task!.error}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const idleRss = await rssOf("self");
let stop = sampleMemory();
let started = Date.now();
const { name, taskId } = await backups.createBackup({}, await superAdmin());
await finished(taskId);
const backupMs = Date.now() - started;
const backupMemory = await stop();
const [listed] = (await backups.listBackups({}, await superAdmin())).items;

stop = sampleMemory();
started = Date.now();
const archiveKey = `restore-uploads/${randomUUID()}`;
async function* chunks() {
  for await (const part of backups.downloadBackup({ name }, await superAdmin())) yield part.chunk;
}
const stored = await store.put(archiveKey, Readable.from(chunks()), { maxBytes: 1024 ** 4 });
const downloadMs = Date.now() - started;
started = Date.now();
const restore = await backups.startRestore(
  { archiveKey, archiveSizeBytes: BigInt(stored.sizeBytes) },
  await superAdmin(),
);
await finished(restore.taskId);
const restoreMs = Date.now() - started;
const restoreMemory = await stop();

const mib = (bytes: number) => Math.round(bytes / MiB);
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
    "node RSS before → peak MiB": "",
    "largest child RSS MiB": "",
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

await admin.close();
await projects.close();
await policy.close();
await identity.close();
await rm(root, { recursive: true, force: true });
