// `sca` as a user runs it: the published package (packages/cli/src/build.ts bundles it, `npm pack` packs it,
// `npm install --global` installs it, as a pipeline does), each command a process of its own, against a portal of its
// own (the test kit's startPortalProcesses: every service and the gateway as processes, a fresh database, its own
// topics), with the shared data set's real SBOMs (juice-shop's) and real manifests as source trees. Checked: sign-in
// by password, with a second factor and by key (the file's rights, no secret printed), SBOM, source and image scans
// (an archive, and a reference the portal pulls from a real local registry) followed over the WebSocket and by
// polling, the gate's three exit codes and its SARIF against the OASIS schema, the reads and exports with a read-only
// key, a signed SBOM bundle verified and a tampered one refused, retries on a real 429 (the team's concurrent-scan
// cap) and 503 (a stopped service), output on a terminal (script(1) gives a pty) and off one, NO_COLOR, completion,
// and the two CI snippets of docs/ci.md run as written. Independent commands run at once: each is a process waiting
// on the portal, and the file's time is mostly the portal's start.
import { execFile, spawn, type ExecFileOptions } from "node:child_process";
import { createHash, createPublicKey, generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import AjvDraft04 from "ajv-draft-04";
import addFormats from "ajv-formats";
import { unzipSync } from "fflate";
import {
  cdxgenBin,
  createDatabase,
  dockerSaveOf,
  freePort,
  sharedDir,
  startOciRegistry,
  startPortalProcesses,
  tarOf,
  totp,
  zipOf,
  type PortalProcesses,
  type TestImage,
  type TestOciRegistry,
} from "@sca/testkit";

const BUILD = fileURLToPath(new URL("../src/build.ts", import.meta.url));

const CI_DOC = new URL("../../../docs/ci.md", import.meta.url);
const SBOMS = join(sharedDir(), "data/sbom");
const MANIFESTS = join(sharedDir(), "data/manifests");
const JUICE = join(SBOMS, "cyclonedx/juice-shop-cyclonedx-npm.cdx-1.7.json");
const JULIA = join(SBOMS, "spdx/julia.spdx-2.2.json");
const ESC = "\u001b";
// The real Debian 12 files of the container-scan tests (their SOURCES.md): an image's dpkg database and npm tree.
const DEBIAN = fileURLToPath(new URL("../../../services/gateway/test/fixtures/debian-bookworm/", import.meta.url));
// Scans a team may have queued or running at once (special configuration): the retry test holds this many.
const TEAM_SCAN_CAP = 3;

const ajv = new AjvDraft04.default({ allErrors: true, strict: false });
addFormats.default(ajv);
let validateSarif: ReturnType<typeof ajv.compile>;

let database: { url: string; drop(): Promise<void> };
let portal: PortalProcesses;
/** A real OCI registry on loopback (the container-scan tests' go-containerregistry), holding the Debian image. */
let registry: TestOciRegistry;
let api: string;
let work: string;
let binDir: string;
/** The installed package's executable (node_modules/@sca/cli/bin/sca.mjs under the npm prefix). */
let main: string;
let signingPublicKey: string;
let teamId: string;
let teamSlug: string;
const developer = { email: "", password: `Cli-${randomBytes(12).toString("base64url")}` };
let adminToken: string;
let leadToken: string;
let leadEmail: string;
let leadPassword: string;
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
  // Minutes: a scan on two cores shared with a full test run (cdxgen alone takes a while).
  return runProcess(process.execPath, [main, ...args], { env, timeout: 300_000 }, opts.input);
}

/** The same on a terminal: script(1) runs it on a pseudo-terminal; stdout and stderr arrive mixed, as a user sees them. */
function scaOnTerminal(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const command = [main, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
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

/** The package as published: built, packed and installed with npm into a prefix of its own; the npm prefix's bin. */
async function installPublishedCli(): Promise<string> {
  // As a publisher runs it (in jest's module sandbox rolldown's native binding refuses its own default options).
  const built = await runProcess(process.execPath, [BUILD, join(work, "dist")], {});
  if (built.code !== 0) throw new Error(`the build failed: ${built.stderr}`);
  expect(built.stdout.trim()).toBe(join(work, "dist", "bin", "sca.mjs"));
  const npmEnv = { PATH: process.env.PATH, HOME: work, npm_config_cache: join(work, "npm-cache") };
  const npm = (args: string[]) =>
    runProcess("npm", [...args, "--offline", "--no-audit", "--no-fund", "--loglevel=error"], { env: npmEnv });
  const packed = await npm(["pack", join(work, "dist"), "--pack-destination", work]);
  if (packed.code !== 0) throw new Error(`npm pack: ${packed.stderr}`);
  const tarball = join(work, packed.stdout.trim().split("\n").pop()!);
  const prefix = join(work, "npm-global");
  const installed = await npm(["install", "--global", "--prefix", prefix, tarball]);
  if (installed.code !== 0) throw new Error(`npm install: ${installed.stderr}`);
  main = join(prefix, "lib/node_modules/@sca/cli/bin/sca.mjs");
  return join(prefix, "bin");
}

// A portal's start (eight migrations, nine processes) takes minutes on two cores shared with a full test run.
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "sca-cli-"));
  validateSarif = ajv.compile(
    JSON.parse(await readFile(new URL("./schemas/sarif-schema-2.1.0.json", import.meta.url), "utf8")) as object,
  );
  // Special configuration: a signing key (passwordless PKCS#8 P-256), so each succeeded scan is signed and
  // `sca verify` has a real bundle to check.
  const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const keyPath = join(work, "signing.key");
  await writeFile(keyPath, pair.privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
  signingPublicKey = pair.publicKey.export({ type: "spki", format: "pem" }).toString();
  database = await createDatabase("sca_cli");
  registry = await startOciRegistry();
  await registry.push("team/app", "1.0", await debianImage());
  // `sca` on PATH, as the CI snippets call it after their `npm install --global`; built while the portal starts.
  const [installed, started] = await Promise.allSettled([
    installPublishedCli(),
    startPortalProcesses({
      databaseUrl: database.url,
      label: "cli",
      productionHeap: false,
      env: {
        // A Redis index of its own: the UI suite (3) and the fuzzing gate (2) sign in from 127.0.0.1 too, against
        // the spec's fixed 5 sign-ins a minute per address.
        REDIS_URL: "redis://127.0.0.1:56379/4",
        // Source and image scans run cdxgen at its pinned install, as the test kit's services do.
        CDXGEN_BIN: cdxgenBin(),
        SIGNING_KEY_PATH: keyPath,
        // `sca scan image REF` pulls from the registry above: a loopback name, spoken over plain HTTP, allowed here
        // only (special configuration, as in the container-scan tests).
        SCAN_REGISTRY_ALLOWED_HOSTS: "localhost",
        SCAN_REGISTRY_PLAIN_HTTP_HOSTS: registry.host,
        // `sca scan source` is checked for its components, exit codes and output, not scancode's file licenses:
        // the stage is off (about 7 CPU-seconds a tree, loading its license index).
        SCANCODE_MAX_FILES: "0",
      },
      // A small team cap, so the retry test can reach it with a few held scans (a real 429 with Retry-After).
      envOf: { "scan-orchestrator": { SCAN_MAX_CONCURRENT_PER_TEAM: String(TEAM_SCAN_CAP) } },
    }),
  ]);
  // Kept before anything is thrown, so that afterAll stops a portal that started.
  if (started.status === "fulfilled") portal = started.value;
  if (installed.status === "rejected") throw installed.reason;
  if (started.status === "rejected") throw started.reason;
  binDir = installed.value;
  api = `${portal.origin}/api`;
  adminToken = await portal.superAdmin();
  teamSlug = `cli-${tag}`;
  const team = await call("POST", "/v1/admin/teams", { name: `CLI ${tag}`, slug: teamSlug });
  teamId = team.json.id as string;
  developer.email = `developer-${tag}@cli.example.com`;
  const lead = { email: `lead-${tag}@cli.example.com`, password: `Cli-${randomBytes(12).toString("base64url")}` };
  const [user, leadUser] = await Promise.all([
    call("POST", "/v1/auth/register", { ...developer, full_name: "Dev Eloper" }),
    call("POST", "/v1/auth/register", { ...lead, full_name: "Team Lead" }),
  ]);
  await Promise.all([
    call("POST", `/v1/admin/teams/${teamId}/members`, { user_id: user.json.id, role: "developer" }),
    call("POST", `/v1/admin/teams/${teamId}/members`, { user_id: leadUser.json.id, role: "team_admin" }),
  ]);
  leadPassword = lead.password;
  leadEmail = lead.email;
  const signedIn = await fetch(`${api}/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(lead),
  });
  leadToken = ((await signedIn.json()) as { access_token: string }).access_token;
  readWriteKey = await issueKey({ scope: "team", team_id: teamId, permission_breadth: "read_write" });
}, 420_000);

afterAll(async () => {
  await portal?.stop();
  await database?.drop();
  await registry?.stop();
  await rm(work, { recursive: true, force: true });
}, 60_000);

/** A Debian 12 image with an npm application (the container-scan tests' image). */
async function debianImage(): Promise<TestImage> {
  const file = (name: string) => readFile(join(DEBIAN, name));
  const npm = await readdir(join(DEBIAN, "npm"));
  const layer = await tarOf([
    { name: "etc/os-release", data: await file("os-release") },
    { name: "etc/debian_version", data: await file("debian_version") },
    { name: "var/lib/dpkg/status", data: await file("status") },
    { name: "usr/share/doc/zlib1g/copyright", data: await file("zlib1g.copyright") },
    { name: "app/package.json", data: JSON.stringify({ name: "image-app", version: "1.0.0", private: true }) },
    ...(await Promise.all(
      npm.map(async (f) => ({
        name: `app/node_modules/${f.replace(/\.package\.json$/, "")}/package.json`,
        data: await file(`npm/${f}`),
      })),
    )),
  ]);
  return { layers: [layer] };
}

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
    const [text, sarif, junit, json] = await Promise.all([
      sca(["gate", "--project", juice]),
      sca(["gate", "--project", juice, "--format", "sarif", "--artifact", "bom.json"]),
      sca(["gate", "--project", juice, "--format", "junit"]),
      sca(["gate", "--project", juice, "--format", "json"]),
    ]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^gate: fail - project juice-[0-9a-f]{6}, scan [0-9a-f-]{36}$/m);
    expect(text.stdout).toContain("CVE-2019-10744 critical in lodash@2.4.2");

    expect(sarif.code).toBe(1);
    const doc = JSON.parse(sarif.stdout) as { runs: { results: { ruleId: string; message: { text: string } }[] }[] };
    expect(validateSarif(doc)).toBe(true);
    expect(
      doc.runs[0]!.results.some(
        (r) => r.ruleId === "critical_vulnerabilities" && r.message.text.includes("CVE-2019-10744"),
      ),
    ).toBe(true);

    expect(junit.code).toBe(1);
    expect(junit.stdout).toContain('<failure type="critical_vulnerabilities"');
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
    const id = project[0]!.project_id;
    const asKey = (args: string[]) => sca(args, { env, who: "nobody" });
    // The SBOM exports one after another, beside the rest: run at once on a loaded machine, projects once saw the
    // gateway cancel an export stream mid-document (ExportSbom: write ECANCELED) and the SPDX document came out cut.
    const exports = async (): Promise<[Run, Run, Run]> => [
      await asKey(["export", "sbom", "--project", id, "--format", "cyclonedx-json"]),
      await asKey(["export", "sbom", "--project", id, "--format", "spdx-json"]),
      await asKey(["export", "sbom", "--project", id, "--format", "cyclonedx-xml", "-o", join(work, "bom.xml")]),
    ];
    const [who, gate, refused, [cdx, spdx, xml], openvex, cdxVex] = await Promise.all([
      asKey(["whoami"]),
      asKey(["gate", "--project", id]),
      // --quiet: the error line alone, no upload progress.
      asKey(["--quiet", "scan", "sbom", JULIA, "--project", id]),
      exports(),
      asKey(["export", "vex", "--project", id, "--format", "openvex"]),
      asKey(["export", "vex", "--project", id, "--format", "cyclonedx"]),
    ]);
    expect(who.stdout).toMatch(/^API key tos_[a-z0-9]+_… at /);
    expect(who.stdout).not.toContain(readOnly);

    expect(gate.code).toBe(1);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^sca: error: 403 .*read-write key.*read-only key is enough for gate.*\[request id [0-9a-f-]+\]$/m,
    );
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).not.toContain(readOnly);

    expect(cdx.stderr).toBe("");
    expect(spdx.stderr).toBe("");
    expect(JSON.parse(cdx.stdout)).toMatchObject({ bomFormat: "CycloneDX" });
    expect(JSON.parse(spdx.stdout)).toMatchObject({ spdxVersion: "SPDX-2.3" });
    expect(xml.code).toBe(0);
    expect(await readFile(join(work, "bom.xml"), "utf8")).toMatch(/^<\?xml[\s\S]*<bom /);
    expect(JSON.parse(openvex.stdout)).toMatchObject({ "@context": expect.stringContaining("openvex") as unknown });
    expect(JSON.parse(cdxVex.stdout)).toMatchObject({ bomFormat: "CycloneDX" });
  }, 180_000);

  it("downloads the signed SBOM bundle, verifies it, and refuses a tampered byte and another key", async () => {
    const project = JSON.parse((await sca(["components", "--project", juice, "--format", "json"])).stdout) as {
      project_id: string;
    }[];
    // Signing follows the scan (projects' consumer): until then the routes answer 404 pending.
    const signature = async () => {
      const res = await fetch(`${api}/v1/projects/${project[0]!.project_id}/sbom/signature`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      return { status: res.status, text: await res.text() };
    };
    for (let deadline = Date.now() + 60_000, last = await signature(); last.status !== 200; last = await signature()) {
      if (Date.now() > deadline) throw new Error(`never signed: ${last.status} ${last.text}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const zip = join(work, "juice-bundle.zip");
    const exported = await sca(["export", "signature-bundle", "--project", juice, "-o", zip]);
    expect(exported.code).toBe(0);

    const keyFile = join(work, "supplier.pub");
    const otherKey = join(work, "other.pub");
    await writeFile(keyFile, signingPublicKey);
    await writeFile(
      otherKey,
      generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ type: "spki", format: "pem" }),
    );
    const keySha256 = createHash("sha256")
      .update(createPublicKey(signingPublicKey).export({ type: "spki", format: "der" }))
      .digest("hex");
    // The zip extracted, with one byte of the SBOM changed.
    const tampered = join(work, "tampered");
    await mkdir(tampered);
    const files = unzipSync(await readFile(zip));
    for (const [name, bytes] of Object.entries(files)) await writeFile(join(tampered, name), bytes);
    const sbomName = Object.keys(files).find((n) => n.endsWith(".cdx.json"))!;
    const sbom = Buffer.from(files[sbomName]!);
    sbom[100] = sbom[100]! ^ 1;
    await writeFile(join(tampered, sbomName), sbom);

    const [byKey, bySha, unpinned, changed, wrongKey] = await Promise.all([
      sca(["verify", zip, "--key", keyFile]),
      sca(["verify", zip, "--key-sha256", keySha256], { who: "nobody" }),
      sca(["verify", zip], { who: "nobody" }),
      sca(["verify", tampered, "--key", keyFile]),
      sca(["verify", zip, "--key", otherKey]),
    ]);
    expect(byKey.code).toBe(0);
    expect(byKey.stdout).toMatch(new RegExp(`^verify: ok - ${sbomName.replace(/\./g, "\\.")} .*${keySha256}$`, "m"));
    expect(byKey.stdout).not.toContain("FAIL");
    expect(byKey.stdout).toContain("verifies with signing.pub");
    expect(bySha.code).toBe(0);
    expect(unpinned.code).toBe(0);
    expect(unpinned.stderr).toContain("the key came from the bundle itself");

    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(/^FAIL sbom-juice-[0-9a-f]{6}\.cdx\.json verifies against its signature/m);
    expect(changed.stdout).toMatch(/^verify: fail - /m);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stdout).toMatch(/^FAIL signing\.pub is the trusted key \(--key\): another key$/m);
  }, 120_000);

  it("scans a source directory with a key (the gate passes, exit 0), a source archive and an image archive at once", async () => {
    const env = { SCA_API_KEY: readWriteKey };
    const flask = `flask-${tag}`;
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
    const image = join(work, "app.tar");
    await writeFile(image, await dockerSaveOf(await debianImage(), "team/app:1.0"));
    const imageProject = `image-${tag}`;
    const [run, archive, saved] = await Promise.all([
      sca(["scan", "source", join(MANIFESTS, "flask"), "--project", flask, "--create", "--team", teamId, "--gate"], {
        env,
        who: "nobody",
      }),
      sca(["scan", "source", zip, "--project", `nodegoat-${tag}`, "--create", "--team", teamSlug]),
      sca([
        "scan",
        "image",
        "team/app:1.0",
        "--archive",
        image,
        "--project",
        imageProject,
        "--create",
        "--team",
        teamSlug,
      ]),
    ]);
    expect(run.stderr).toMatch(/^upload flask\.zip: /m);
    expect(run.stdout).toMatch(/^scan [0-9a-f-]{36} succeeded: [1-9]\d* components/m);
    expect(run.stdout).toMatch(/^gate: pass - project flask-/m);
    expect(run.code).toBe(0);

    expect(archive.code).toBe(0);
    expect(archive.stdout).toMatch(/^scan [0-9a-f-]{36} succeeded: [1-9]\d* components/m);

    expect(saved.code).toBe(0);
    expect(saved.stderr).toMatch(/^upload app\.tar: /m);
    expect(saved.stdout).toMatch(/^scan [0-9a-f-]{36} succeeded: [1-9]\d* components/m);
    const components = await sca(["components", "--project", imageProject, "--format", "json"]);
    const names = (JSON.parse(components.stdout) as { name: string }[]).map((c) => c.name);
    // The image's dpkg database and its npm tree, as the container-scan tests find them.
    expect(names).toEqual(expect.arrayContaining(["zlib1g", "yauzl"]));
  }, 420_000);

  it("scans an image the portal pulls from a registry by its reference", async () => {
    const project = `image-ref-${tag}`;
    const ref = `${registry.host}/team/app:1.0`;
    const pulled = await sca(["scan", "image", ref, "--project", project, "--create", "--team", teamSlug]);
    expect(pulled.code).toBe(0);
    // Nothing is uploaded: the reference is the scan's target.
    expect(pulled.stderr).not.toMatch(/^upload /m);
    expect(pulled.stdout).toMatch(/^scan [0-9a-f-]{36} succeeded: [1-9]\d* components/m);
    const components = await sca(["components", "--project", project, "--format", "json"]);
    const names = (JSON.parse(components.stdout) as { name: string }[]).map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(["zlib1g", "yauzl"]));
  }, 300_000);

  it("exits 2 when the scan fails, when gate --wait finds it failed, and when the portal does not answer", async () => {
    const bad = join(work, "not-an-sbom.json");
    await writeFile(bad, '{"hello": "world"}');
    const project = `bad-${tag}`;
    const closed = await freePort();
    const [scan, down] = await Promise.all([
      sca(["scan", "sbom", bad, "--project", project, "--create", "--team", teamSlug]),
      sca(["gate", "--project", juice, "--api", `http://127.0.0.1:${closed}/api`]),
    ]);
    expect(scan.code).toBe(2);
    expect(scan.stderr).toMatch(/^sca: error: scan [0-9a-f-]{36} failed: .*neither CycloneDX/m);
    const gate = await sca(["gate", "--wait", "--project", project]);
    expect(gate.code).toBe(2);
    expect(gate.stderr).toMatch(/^sca: error: the newest scan [0-9a-f-]{36} failed/m);

    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/^sca: error: the portal at http:\/\/127\.0\.0\.1:\d+\/api did not answer/m);
  }, 300_000);

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

    const [coloured, plain] = await Promise.all([
      scaOnTerminal(["gate", "--project", juice]),
      scaOnTerminal(["gate", "--project", juice], { NO_COLOR: "1" }),
    ]);
    expect(coloured.code).toBe(1);
    expect(coloured.stdout).toContain(`${ESC}[31mgate: fail${ESC}[39m`);
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

  it("signs in with a password and a second factor (TOTP), printing neither", async () => {
    const setup = await call("POST", "/v1/auth/mfa/totp/setup", undefined, leadToken);
    expect(setup.status).toBe(200);
    const secret = setup.json.secret as string;
    const confirmed = await call("POST", "/v1/auth/mfa/totp/confirm", { code: totp(secret) }, leadToken);
    expect(confirmed.status).toBe(200);
    // The next step's code: the one just used for the confirmation is not accepted twice.
    const code = totp(secret, Date.now() + 30_000);
    const login = await sca(["login", "--email", leadEmail], { input: `${leadPassword}\n${code}\n`, who: "lead" });
    expect(login.code).toBe(0);
    expect(login.stderr).toContain(`signed in as ${leadEmail}`);
    const who = await sca(["whoami"], { who: "lead" });
    expect(who.code).toBe(0);
    expect(who.stdout).toContain(`team_admin of ${teamSlug}`);
    const stored = await readFile(join(work, "lead", "sca", "credentials.json"), "utf8");
    for (const out of [login.stdout + login.stderr, who.stdout + who.stderr, stored]) {
      expect(out).not.toContain(leadPassword);
      expect(out).not.toContain(secret);
    }
    expect(login.stdout + login.stderr + who.stdout).not.toContain(code);

    // A wrong code: the portal's refusal in one line, nothing stored.
    const refused = await sca(["login", "--email", leadEmail], { input: `${leadPassword}\n000000\n`, who: "lead-2" });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^sca: error: 401 .*\[request id [0-9a-f-]+\]$/m);
    await expect(stat(join(work, "lead-2", "sca", "credentials.json"))).rejects.toThrow();
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

/** sca started in the background, its stderr readable as it comes (the retry test waits for a line). */
function scaStarted(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [main, ...args], {
    env: { PATH: process.env.PATH, HOME: work, XDG_CONFIG_HOME: join(work, "nobody"), SCA_API: api, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const lines: ((text: string) => void)[] = [];
  child.stdout.on("data", (d: Buffer) => (stdout += String(d)));
  child.stderr.on("data", (d: Buffer) => {
    stderr += String(d);
    for (const l of lines) l(stderr);
  });
  const done = new Promise<Run>((resolve) =>
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr })),
  );
  return {
    done,
    /** The first match of `pattern` on stderr. */
    waitFor: (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const seen = (text: string) => {
          const m = pattern.exec(text);
          if (m) resolve(m);
        };
        lines.push(seen);
        seen(stderr);
        void done.then(() => reject(new Error(`sca ended without ${pattern}: ${stderr}`)));
      }),
  };
}

/** An SBOM scan started through the API (upload, then scan): it counts against the team's cap until it ends. */
async function startScanThroughApi(projectId: string): Promise<void> {
  const upload = await fetch(`${api}/v1/projects/${projectId}/sbom-uploads`, {
    method: "POST",
    headers: { "content-type": "application/spdx+json", authorization: `Bearer ${adminToken}` },
    body: await readFile(JULIA),
  });
  expect(upload.status).toBe(201);
  const { upload_id } = (await upload.json()) as { upload_id: string };
  const scan = await call("POST", `/v1/projects/${projectId}/scans`, {
    kind: "sbom",
    sbom_upload_id: upload_id,
    ref: "",
    metadata: {},
  });
  expect(scan.status).toBe(202);
}

// Last: the 503 case stops a service of the portal for good.
describe("retries on 429 and 503", () => {
  it("waits the Retry-After of the team's concurrent-scan cap (a real 429), then scans", async () => {
    const project = await call("POST", "/v1/projects", { name: `held-${tag}`, slug: `held-${tag}`, team_id: teamId });
    const runner = portal.pids["scanner-runner"];
    // The scanner-runner paused (our own child process): the held scans stay queued, so the team is at its cap.
    process.kill(runner, "SIGSTOP");
    let resumed = false;
    try {
      for (let i = 0; i < TEAM_SCAN_CAP; i++) await startScanThroughApi(project.json.id as string);
      const cli = scaStarted(["scan", "sbom", JULIA, "--project", `held-${tag}`], { SCA_API_KEY: readWriteKey });
      const retry = await cli.waitFor(/^the portal answered 429; trying again in (\d+\.\d) s$/m);
      // Retry-After is whole seconds (the cap's estimate), unlike the back-off's first 0.5 s.
      expect(Number(retry[1])).toBeGreaterThanOrEqual(1);
      expect(retry[1]).toMatch(/\.0$/);
      process.kill(runner, "SIGCONT");
      resumed = true;
      const run = await cli.done;
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^scan [0-9a-f-]{36} succeeded: [1-9]\d* components/m);
    } finally {
      if (!resumed) process.kill(runner, "SIGCONT");
    }
  }, 120_000);

  it("backs off on a stopped service's 503 (0.5, 1, 2, 4 s), then reports it in one line", async () => {
    // Our own child process: projects stops, so the gateway answers 503 for every project read.
    process.kill(portal.pids.projects, "SIGTERM");
    for (;;) {
      try {
        process.kill(portal.pids.projects, 0);
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const run = await sca(["findings", "--project", juice], { env: { SCA_API_KEY: readWriteKey }, who: "nobody" });
    expect(run.code).toBe(2);
    const waits = [...run.stderr.matchAll(/^the portal answered 503; trying again in (\d+\.\d) s$/gm)].map((m) => m[1]);
    expect(waits).toEqual(["0.5", "1.0", "2.0", "4.0"]);
    expect(run.stderr).toMatch(/^sca: error: 503 .*\[request id [0-9a-f-]+\]$/m);
  }, 60_000);
});
