// `sca` as a user runs it: the real executable (node src/main.ts) in a process of its own, against a portal of its
// own (the test kit's startPortalProcesses: every service and the gateway as processes, a fresh database, its own
// topics), with the shared data set's real SBOMs (juice-shop's) and real manifests as source trees. Checked: sign-in
// by password and by key (the file's rights, no secret printed), SBOM and source scans followed over the WebSocket
// and by polling, the gate's three exit codes and its SARIF against the OASIS schema, the reads and exports with a
// read-only key, output on a terminal (script(1) gives a pty) and off one, NO_COLOR, completion, and the two CI
// snippets of docs/ci.md run as written.
import { execFile, type ExecFileOptions } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import AjvDraft04 from "ajv-draft-04";
import addFormats from "ajv-formats";
import {
  cdxgenBin,
  createDatabase,
  freePort,
  sharedDir,
  startPortalProcesses,
  zipOf,
  type PortalProcesses,
} from "@sca/testkit";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const CI_DOC = new URL("../../../docs/ci.md", import.meta.url);
const SBOMS = join(sharedDir(), "data/sbom");
const MANIFESTS = join(sharedDir(), "data/manifests");
const JUICE = join(SBOMS, "cyclonedx/juice-shop-cyclonedx-npm.cdx-1.7.json");
const JULIA = join(SBOMS, "spdx/julia.spdx-2.2.json");
const ESC = "\u001b";

const ajv = new AjvDraft04.default({ allErrors: true, strict: false });
addFormats.default(ajv);
let validateSarif: ReturnType<typeof ajv.compile>;

let database: { url: string; drop(): Promise<void> };
let portal: PortalProcesses;
let api: string;
let work: string;
let binDir: string;
let teamId: string;
let teamSlug: string;
const developer = { email: "", password: `Cli-${randomBytes(12).toString("base64url")}` };
let adminToken: string;
let leadToken: string;
let readWriteKey: string;
const tag = randomBytes(3).toString("hex");
const juice = `juice-${tag}`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end: its exit code (0 or what it exited with) and its output. */
function runProcess(file: string, args: string[], options: ExecFileOptions, input = ""): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { maxBuffer: 64 * 1024 * 1024, ...options }, (err, stdout, stderr) =>
      resolve({
        code: err ? ((err as { code?: number }).code ?? -1) : 0,
        stdout: String(stdout),
        stderr: String(stderr),
      }),
    );
    child.stdin?.end(input);
  });
}

/** Runs sca with its own config directory (the signed-in state of `who`), off a terminal. */
function sca(args: string[], opts: { env?: Record<string, string>; input?: string; who?: string } = {}): Promise<Run> {
  const env = {
    PATH: process.env.PATH,
    HOME: work,
    XDG_CONFIG_HOME: join(work, opts.who ?? "person"),
    SCA_API: api,
    ...opts.env,
  };
  return runProcess(process.execPath, [MAIN, ...args], { env, timeout: 120_000 }, opts.input);
}

/** The same on a terminal: script(1) runs it on a pseudo-terminal; stdout and stderr arrive mixed, as a user sees them. */
function scaOnTerminal(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const command = [MAIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  return runProcess("script", ["-q", "-e", "-c", `'${process.execPath}' ${command}`, "/dev/null"], {
    env: {
      PATH: process.env.PATH,
      HOME: work,
      XDG_CONFIG_HOME: join(work, "person"),
      SCA_API: api,
      TERM: "xterm",
      COLUMNS: "120",
      ...env,
    },
    timeout: 120_000,
  });
}

async function call(method: string, path: string, body?: unknown, token = adminToken) {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : {}) as Record<string, unknown>, text };
}

/** An API key; identity learns of a new project from projects' events, so a project key may take a moment. */
async function issueKey(body: Record<string, unknown>): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    // Issued by the team's admin (team keys need team_admin): a key acts with its issuer's role on the team.
    const issued = await call("POST", "/v1/api-keys", { name: `cli ${tag}`, ...body }, leadToken);
    if (issued.status === 201) return issued.json.raw_key as string;
    if (Date.now() > deadline) throw new Error(`no API key: ${issued.status} ${issued.text}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "sca-cli-"));
  validateSarif = ajv.compile(
    JSON.parse(await readFile(new URL("./schemas/sarif-schema-2.1.0.json", import.meta.url), "utf8")) as object,
  );
  database = await createDatabase("sca_cli");
  portal = await startPortalProcesses({
    databaseUrl: database.url,
    label: "cli",
    env: {
      // A Redis index of its own: the UI suite (3) and the fuzzing gate (2) sign in from 127.0.0.1 too, against the
      // spec's fixed 5 sign-ins a minute per address.
      REDIS_URL: "redis://127.0.0.1:56379/4",
      // Source scans run cdxgen at its pinned install, as the test kit's services do.
      CDXGEN_BIN: cdxgenBin(),
    },
  });
  api = `${portal.origin}/api`;
  adminToken = await portal.superAdmin();
  teamSlug = `cli-${tag}`;
  const team = await call("POST", "/v1/admin/teams", { name: `CLI ${tag}`, slug: teamSlug });
  teamId = team.json.id as string;
  developer.email = `developer-${tag}@cli.example.com`;
  const user = await call("POST", "/v1/auth/register", { ...developer, full_name: "Dev Eloper" });
  await call("POST", `/v1/admin/teams/${teamId}/members`, { user_id: user.json.id, role: "developer" });
  const lead = { email: `lead-${tag}@cli.example.com`, password: `Cli-${randomBytes(12).toString("base64url")}` };
  const leadUser = await call("POST", "/v1/auth/register", { ...lead, full_name: "Team Lead" });
  await call("POST", `/v1/admin/teams/${teamId}/members`, { user_id: leadUser.json.id, role: "team_admin" });
  const signedIn = await fetch(`${api}/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(lead),
  });
  leadToken = ((await signedIn.json()) as { access_token: string }).access_token;
  readWriteKey = await issueKey({ scope: "team", team_id: teamId, permission_breadth: "read_write" });
  // `sca` on PATH, as the CI snippets call it.
  binDir = join(work, "bin");
  await writeFile(join(work, "sca"), `#!/bin/sh\nexec '${process.execPath}' '${MAIN}' "$@"\n`, { mode: 0o755 });
  await mkdir(binDir);
  await symlink(join(work, "sca"), join(binDir, "sca"));
}, 240_000);

afterAll(async () => {
  await portal?.stop();
  await database?.drop();
  await rm(work, { recursive: true, force: true });
}, 60_000);

describe("sca against a portal", () => {
  it("signs in with a password into a 0600 file, prints no secret, and says who it is", async () => {
    const login = await sca(["login", "--email", developer.email], { input: `${developer.password}\n` });
    expect(login.code).toBe(0);
    const file = join(work, "person", "sca", "credentials.json");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(work, "person", "sca"))).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(await readFile(file, "utf8")) as { bearer: { kind: string; secret: string } };
    expect(stored.bearer.kind).toBe("access_token");
    expect(await readFile(file, "utf8")).not.toContain(developer.password);

    const who = await sca(["whoami"]);
    expect(who.code).toBe(0);
    expect(who.stdout).toContain(developer.email);
    expect(who.stdout).toContain(`developer of ${teamSlug}`);
    for (const out of [login, who]) {
      expect(out.stdout + out.stderr).not.toContain(developer.password);
      expect(out.stdout + out.stderr).not.toContain(stored.bearer.secret);
    }
  });

  it("scans juice-shop's SBOM as a person, following over the WebSocket, with plain progress off a terminal", async () => {
    const run = await sca(["scan", "sbom", JUICE, "--project", juice, "--create", "--team", teamSlug]);
    expect(run.code).toBe(0);
    const summary =
      /^scan ([0-9a-f-]{36}) succeeded: (\d+) components; vulnerable components by worst severity: critical (\d+)/m.exec(
        run.stdout,
      );
    expect(summary).not.toBeNull();
    expect(run.stderr).toContain(`created project ${juice}`);
    expect(run.stderr).toMatch(/^upload juice-shop-cyclonedx-npm\.cdx-1\.7\.json: 1\.3 MiB$/m);
    expect(run.stderr).toMatch(/^scan [0-9a-f]{8}: 100% /m);
    expect(run.stdout + run.stderr).not.toContain(`${ESC}[`);

    // The summary's count is the component list's, read back through the CLI.
    const components = await sca(["components", "--project", juice, "--format", "json"]);
    expect(components.code).toBe(0);
    expect((JSON.parse(components.stdout) as unknown[]).length).toBe(Number(summary![2]));
    const findings = await sca(["findings", "--project", juice, "--severity", "critical"]);
    expect(findings.code).toBe(0);
    expect(findings.stdout).toMatch(/^critical\s+CVE-2019-10744\s+lodash@2\.4\.2/m);
  }, 180_000);

  it("fails the gate with exit 1, naming the reasons, in text, SARIF (valid against its schema) and JUnit", async () => {
    const text = await sca(["gate", "--project", juice]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^gate: fail - project juice-[0-9a-f]{6}, scan [0-9a-f-]{36}$/m);
    expect(text.stdout).toContain("CVE-2019-10744 critical in lodash@2.4.2");

    const sarif = await sca(["gate", "--project", juice, "--format", "sarif", "--artifact", "bom.json"]);
    expect(sarif.code).toBe(1);
    const doc = JSON.parse(sarif.stdout) as { runs: { results: { ruleId: string; message: { text: string } }[] }[] };
    expect(validateSarif(doc)).toBe(true);
    expect(
      doc.runs[0]!.results.some(
        (r) => r.ruleId === "critical_vulnerabilities" && r.message.text.includes("CVE-2019-10744"),
      ),
    ).toBe(true);

    const junit = await sca(["gate", "--project", juice, "--format", "junit"]);
    expect(junit.code).toBe(1);
    expect(junit.stdout).toContain('<failure type="critical_vulnerabilities"');
    const json = await sca(["gate", "--project", juice, "--format", "json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ passed: false, outcome: "fail" });
  });

  it("reads and exports with a read-only project key, and refuses to scan with it, saying why", async () => {
    const project = JSON.parse((await sca(["components", "--project", juice, "--format", "json"])).stdout) as {
      project_id: string;
    }[];
    const readOnly = await issueKey({
      scope: "project",
      team_id: teamId,
      project_id: project[0]!.project_id,
      permission_breadth: "read_only",
    });
    const env = { SCA_API_KEY: readOnly };
    const who = await sca(["whoami"], { env, who: "nobody" });
    expect(who.stdout).toMatch(/^API key tos_[a-z0-9]+_… at /);
    expect(who.stdout).not.toContain(readOnly);

    expect((await sca(["gate", "--project", project[0]!.project_id], { env, who: "nobody" })).code).toBe(1);
    // --quiet: the error line alone, no upload progress.
    const refused = await sca(["--quiet", "scan", "sbom", JULIA, "--project", project[0]!.project_id], {
      env,
      who: "nobody",
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^sca: error: 403 .*read-write key.*read-only key is enough for gate.*\[request id [0-9a-f-]+\]$/m,
    );
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).not.toContain(readOnly);

    const id = project[0]!.project_id;
    const cdx = await sca(["export", "sbom", "--project", id, "--format", "cyclonedx-json"], { env, who: "nobody" });
    expect(JSON.parse(cdx.stdout)).toMatchObject({ bomFormat: "CycloneDX" });
    const spdx = await sca(["export", "sbom", "--project", id, "--format", "spdx-json"], { env, who: "nobody" });
    expect(JSON.parse(spdx.stdout)).toMatchObject({ spdxVersion: "SPDX-2.3" });
    const xml = await sca(
      ["export", "sbom", "--project", id, "--format", "cyclonedx-xml", "-o", join(work, "bom.xml")],
      {
        env,
        who: "nobody",
      },
    );
    expect(xml.code).toBe(0);
    expect(await readFile(join(work, "bom.xml"), "utf8")).toMatch(/^<\?xml[\s\S]*<bom /);
    const openvex = await sca(["export", "vex", "--project", id, "--format", "openvex"], { env, who: "nobody" });
    expect(JSON.parse(openvex.stdout)).toMatchObject({ "@context": expect.stringContaining("openvex") as unknown });
    const cdxVex = await sca(["export", "vex", "--project", id, "--format", "cyclonedx"], { env, who: "nobody" });
    expect(JSON.parse(cdxVex.stdout)).toMatchObject({ bomFormat: "CycloneDX" });
  });

  it("passes the gate with exit 0 after a source scan of a directory, polling with a read-write key", async () => {
    const env = { SCA_API_KEY: readWriteKey };
    const project = `flask-${tag}`;
    const run = await sca(
      ["scan", "source", join(MANIFESTS, "flask"), "--project", project, "--create", "--team", teamId, "--gate"],
      { env, who: "nobody" },
    );
    expect(run.stderr).toMatch(/^upload flask\.zip: /m);
    expect(run.stdout).toMatch(/^scan [0-9a-f-]{36} succeeded: [1-9]\d* components/m);
    expect(run.stdout).toMatch(/^gate: pass - project flask-/m);
    expect(run.code).toBe(0);
  }, 180_000);

  it("scans a source archive (.zip) of a real project", async () => {
    const zip = join(work, "nodegoat.zip");
    const files = ["package.json", "package-lock.json"];
    await writeFile(
      zip,
      zipOf(
        await Promise.all(
          files.map(async (name) => ({ name, data: await readFile(join(MANIFESTS, "nodegoat", name)), deflate: true })),
        ),
      ),
    );
    const run = await sca(["scan", "source", zip, "--project", `nodegoat-${tag}`, "--create", "--team", teamSlug]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^scan [0-9a-f-]{36} succeeded: [1-9]\d* components/m);
  }, 180_000);

  it("exits 2 when the scan fails, when gate --wait finds it failed, and when the portal does not answer", async () => {
    const bad = join(work, "not-an-sbom.json");
    await writeFile(bad, '{"hello": "world"}');
    const project = `bad-${tag}`;
    const scan = await sca(["scan", "sbom", bad, "--project", project, "--create", "--team", teamSlug]);
    expect(scan.code).toBe(2);
    expect(scan.stderr).toMatch(/^sca: error: scan [0-9a-f-]{36} failed: .*neither CycloneDX/m);
    const gate = await sca(["gate", "--wait", "--project", project]);
    expect(gate.code).toBe(2);
    expect(gate.stderr).toMatch(/^sca: error: the newest scan [0-9a-f-]{36} failed/m);

    const closed = await freePort();
    const down = await sca(["gate", "--project", juice, "--api", `http://127.0.0.1:${closed}/api`]);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/^sca: error: the portal at http:\/\/127\.0\.0\.1:\d+\/api did not answer/m);
  }, 120_000);

  it("draws a bar and colours on a terminal, and no colour with NO_COLOR", async () => {
    const scan = await scaOnTerminal([
      "scan",
      "sbom",
      JULIA,
      "--project",
      `julia-${tag}`,
      "--create",
      "--team",
      teamSlug,
    ]);
    expect(scan.code).toBe(0);
    expect(scan.stdout).toMatch(/upload julia\.spdx-2\.2\.json \[#+-*\]/);
    expect(scan.stdout).toMatch(/scan [0-9a-f]{8} \[#+\] 100%/);

    const coloured = await scaOnTerminal(["gate", "--project", juice]);
    expect(coloured.code).toBe(1);
    expect(coloured.stdout).toContain(`${ESC}[31mgate: fail${ESC}[39m`);
    const plain = await scaOnTerminal(["gate", "--project", juice], { NO_COLOR: "1" });
    expect(plain.code).toBe(1);
    expect(plain.stdout).toContain("gate: fail");
    expect(plain.stdout).not.toContain(`${ESC}[31m`);
  }, 120_000);

  it("completes commands and options in bash", async () => {
    const script = (await sca(["completion", "bash"], { who: "nobody" })).stdout;
    const complete = (line: string) =>
      new Promise<string>((resolve, reject) => {
        execFile(
          "bash",
          [
            "--norc",
            "--noprofile",
            "-c",
            `${script}\nCOMP_WORDS=(${line}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _sca; echo "\${COMPREPLY[*]}"`,
          ],
          (err, stdout) => (err ? reject(new Error(err.message)) : resolve(stdout.trim())),
        );
      });
    expect(await complete("sca sc")).toBe("scan");
    expect((await complete("sca scan ''")).split(" ")).toEqual(expect.arrayContaining(["sbom", "source", "image"]));
    expect(await complete("sca scan sbom bom.json --proj")).toBe("--project");
    expect(await complete("sca gate --for")).toBe("--format");
  });
});

/** The block after a docs/ci.md marker. */
async function ciBlock(marker: string): Promise<string> {
  const doc = await readFile(CI_DOC, "utf8");
  const at = doc.indexOf(`<!-- ${marker}:`);
  if (at < 0) throw new Error(`docs/ci.md has no ${marker} marker`);
  const block = /^```yaml\n([\s\S]*?)^```$/m.exec(doc.slice(at));
  if (!block) throw new Error(`no yaml block after ${marker}`);
  return block[1]!;
}

/** Runs a CI script with bash -e in a checkout holding bom.json, with sca on PATH and the pipeline's variables. */
function runCi(script: string, dir: string, env: Record<string, string>): Promise<Run> {
  return runProcess("bash", ["--norc", "--noprofile", "-e", "-c", script], {
    cwd: dir,
    env: { PATH: `${binDir}:${process.env.PATH}`, HOME: work, XDG_CONFIG_HOME: join(work, "ci"), ...env },
    timeout: 150_000,
  });
}

describe("docs/ci.md, run as written", () => {
  it("GitHub Actions: the step fails on juice-shop's verdict and leaves valid SARIF for code scanning", async () => {
    const yaml = await ciBlock("ci-github");
    const step = /- name: Scan and gate\n([\s\S]*?)(?=\n\s*- name:|$)/.exec(yaml)![1]!;
    const run = /^(\s*)run: \|\n((?:\1\s+.*\n?)+)/m.exec(step)!;
    const script = run[2]!.replace(new RegExp(`^${run[1]}  `, "gm"), "");
    expect(step).toContain("SCA_API_KEY: ${{ secrets.SCA_API_KEY }}");
    const dir = await mkdtemp(join(work, "github-"));
    await writeFile(join(dir, "bom.json"), await readFile(JUICE));
    const result = await runCi(script, dir, { SCA_API: api, SCA_API_KEY: readWriteKey, SCA_PROJECT: juice });
    expect(result.code).toBe(1);
    const sarif = JSON.parse(await readFile(join(dir, "sca.sarif"), "utf8")) as object;
    expect(validateSarif(sarif)).toBe(true);
    expect(JSON.stringify(sarif)).toContain('"uri":"bom.json"');
  }, 180_000);

  it("GitLab CI: the job passes on a clean SBOM and leaves a JUnit report", async () => {
    const yaml = await ciBlock("ci-gitlab");
    const lines = /^ {2}script:\n((?: {4}- .*\n)+)/m.exec(yaml)![1]!;
    const script = lines
      .split("\n")
      .filter(Boolean)
      .map((l) => l.replace(/^ {4}- /, ""))
      .join("\n");
    const dir = await mkdtemp(join(work, "gitlab-"));
    await writeFile(join(dir, "bom.json"), await readFile(JULIA));
    const project = `julia-ci-${tag}`;
    // The project exists before the pipeline runs, as in CI.
    expect((await call("POST", "/v1/projects", { name: project, slug: project, team_id: teamId })).status).toBe(201);
    const result = await runCi(script, dir, { SCA_API: api, SCA_API_KEY: readWriteKey, SCA_PROJECT: project });
    expect(result.code).toBe(0);
    expect(await readFile(join(dir, "sca-junit.xml"), "utf8")).toMatch(
      /<testsuites name="sca gate" tests="4" failures="0"/,
    );
  }, 180_000);
});
