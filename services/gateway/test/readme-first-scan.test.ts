// The README's "A first scan" walk-through, run as written: the bash block after the `first-scan` marker goes to
// bash unchanged, against a portal of the test's own (identity, projects, scan-orchestrator, scanner-runner and a
// gateway, started by the test kit on ephemeral ports, one topic prefix and one artefact directory, as ./dev up runs
// them on one machine). What the reader sets, the test sets the same way: API (the gateway's /api), ADMIN_EMAIL and
// ADMIN_PASSWORD (the super_admin ./dev up creates from them and prints), and the working directory is a checkout's
// root with the shared data set beside it, so `../shared/data/sbom/...` resolves as it does for a reader.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { fixturesOf, sharedDir, startService, uniqueName, type TestService } from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";

const README = new URL("../../../README.md", import.meta.url);
const MARKER = "<!-- first-scan:";

/** The fenced bash block right after the marker, byte for byte. */
function firstScanBlock(readme: string): string {
  const at = readme.indexOf(MARKER);
  if (at < 0) throw new Error(`README.md has no ${MARKER} marker`);
  const block = /^```bash\n([\s\S]*?)^```$/m.exec(readme.slice(at));
  if (!block || readme.slice(at, at + block.index).split("\n").length > 2)
    throw new Error("the first-scan marker must be followed by a ```bash block on the next line");
  return block[1]!;
}

const services: TestService[] = [];
let gateway: TestGateway;
let dir: string;
let adminPassword: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-readme-"));
  const artefactDir = join(dir, "artefacts");
  await mkdir(artefactDir);
  // A checkout's root (the reader's working directory) with shared/ beside it.
  await mkdir(join(dir, "checkout"));
  await symlink(sharedDir(), join(dir, "shared"));

  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const KAFKA_TOPIC_PREFIX = `${uniqueName("readme_stack")}.`;
  const identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  services.push(identity);
  const projects = await startService("projects", {
    env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX, ARTEFACT_DIR: artefactDir },
  });
  services.push(projects);
  const orchestrator = await startService("scan-orchestrator", {
    env: { PROJECTS_RPC_URL: projects.url!, KAFKA_TOPIC_PREFIX, ARTEFACT_DIR: artefactDir },
  });
  services.push(orchestrator);
  services.push(
    await startService("scanner-runner", {
      env: { PROJECTS_RPC_URL: projects.url!, KAFKA_TOPIC_PREFIX, ARTEFACT_DIR: artefactDir },
    }),
  );
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { projects: projects.url!, "scan-orchestrator": orchestrator.url! },
    env: { ARTEFACT_DIR: artefactDir },
  });
  // The super_admin ./dev up creates (bootstrap-admin) from ADMIN_EMAIL (default admin@sca.local) and ADMIN_PASSWORD.
  adminPassword = randomBytes(18).toString("base64url");
  await (
    await fixturesOf("identity")
  ).person(identity.orm, {
    email: "admin@sca.local",
    password: adminPassword,
    superAdmin: true,
  });
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  for (const s of services.reverse()) await s.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("README: a first scan", () => {
  it("runs as written: the scan succeeds and the component list holds the SBOM's components", async () => {
    const readme = await readFile(README, "utf8");
    const script = firstScanBlock(readme);
    // The count the README promises on its last line (# 1001): Juice Shop's CycloneDX 1.7 document has 1116
    // component entries (../shared/data/sbom/SOURCES.md), 1001 distinct purls once nested duplicates are merged.
    const promised = /#\s*(\d+)\s*$/.exec(script.trimEnd())?.[1];
    expect(promised).toBe("1001");

    // -e and pipefail: a command of the walk-through that fails (a problem document where an id was expected,
    // an unreachable route) stops the run with a non-zero status, which fails the test.
    const run = promisify(execFile)("bash", ["--norc", "--noprofile", "-euo", "pipefail", "-c", script], {
      cwd: join(dir, "checkout"),
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        API: `${gateway.origin}/api`,
        ADMIN_PASSWORD: adminPassword,
      },
      timeout: 90_000,
    });
    const { stdout } = await run.catch((err: { code?: number; stdout?: string; stderr?: string }) => {
      throw new Error(`the walk-through failed (exit ${err.code}):\n${err.stdout ?? ""}${err.stderr ?? ""}`);
    });
    const lines = stdout.trim().split("\n");
    const statuses = lines.slice(0, -1);
    expect(statuses.length).toBeGreaterThan(0);
    for (const s of statuses) expect(["queued", "running", "succeeded"]).toContain(s);
    expect(statuses.at(-1)).toBe("succeeded");
    expect(lines.at(-1)).toBe(promised);
  }, 120_000);
});
