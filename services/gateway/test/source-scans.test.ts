// Source scans end to end (docs/source-scans.md): the gateway, identity, projects, the scan-orchestrator and the
// scanner-runner on the real servers, real repositories served by a real git server on loopback (git http-backend,
// reached through SCAN_GIT_ALLOWED_HOSTS=localhost), real manifests from the shared data set, cdxgen building the
// SBOM. What each scan stored is checked against the lockfile, parsed here on its own. Bad inputs each fail the scan
// with a clear error_message and leave no components and no inventory artefact behind.
import { randomUUID } from "node:crypto";
import { chmod, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ScanLogLineSchema, ScanProgressSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { sharedDir, startGitServer, tarOf, zipOf, type EventReader, type TestGitServer } from "@sca/testkit";
import type { TestGateway } from "./harness.ts";
import { startSourceScanStack, type SourceScanStack } from "./support/source-scan-stack.ts";

const MANIFESTS = join(sharedDir(), "data/manifests");
const CREDENTIAL = { user: "scanner", password: `tok-${randomUUID()}` };

let artefactDir: string;
let git: TestGitServer;
let privateGit: TestGitServer;
let stack: SourceScanStack;
let gateway: TestGateway;
let events: EventReader;
let dev: string;
let teamId: string;

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${gateway.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${dev}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function manifests(name: string): Promise<Record<string, Buffer>> {
  const files: Record<string, Buffer> = {};
  for (const file of [
    "package.json",
    "package-lock.json",
    "requirements.txt",
    "Cargo.toml",
    "Cargo.lock",
    "go.mod",
    "go.sum",
    "pom.xml",
    "build.gradle",
    "pyproject.toml",
    "uv.lock",
  ]) {
    const body = await readFile(join(MANIFESTS, name, file)).catch(() => undefined);
    if (body) files[file] = body;
  }
  return files;
}

async function project(fields: Record<string, unknown> = {}): Promise<string> {
  const slug = `src-${randomUUID().slice(0, 8)}`;
  const created = await call("POST", "/v1/projects", { name: `P ${slug}`, slug, team_id: teamId, ...fields });
  expect(created.status).toBe(201);
  return created.json.id as string;
}

async function scanOf(projectId: string, body: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const created = await call("POST", `/v1/projects/${projectId}/scans`, { kind: "source", ...body });
  expect(created.status).toBe(202);
  let scan = created.json;
  for (const deadline = Date.now() + 180_000; !["succeeded", "failed", "cancelled"].includes(scan.status as string);) {
    if (Date.now() > deadline) throw new Error(`the scan is still ${scan.status as string}`);
    await delay(250);
    scan = (await call("GET", `/v1/scans/${created.json.id as string}`)).json;
  }
  return scan;
}

async function componentsOf(projectId: string): Promise<{ purl: string; version: string; name: string }[]> {
  const all: { purl: string; version: string; name: string }[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = await call("GET", `/v1/projects/${projectId}/components?limit=500&offset=${offset}`);
    expect(page.status).toBe(200);
    const items = page.json.items as { purl: string; version: string; name: string }[];
    all.push(...items);
    if (all.length >= (page.json.total as number) || items.length === 0) return all;
  }
}

async function uploadArchive(projectId: string, zip: Buffer): Promise<string> {
  const form = new FormData();
  form.append("upload", new Blob([zip]), "src.zip");
  const res = await fetch(`${gateway.origin}/v1/projects/${projectId}/source-archives`, {
    method: "POST",
    headers: { authorization: `Bearer ${dev}` },
    body: form,
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { archive_id: string }).archive_id;
}

type PackageLock = { packages: Record<string, { version?: string; link?: boolean }> };
const packageLockOf = (text: string) => JSON.parse(text) as PackageLock;

/** The npm purls a package-lock.json (v2/v3) pins: one per distinct name and version of its packages. */
function lockfilePurls(lock: PackageLock): Set<string> {
  const purls = new Set<string>();
  for (const [path, pkg] of Object.entries(lock.packages)) {
    if (!path || pkg.link || !pkg.version) continue;
    const name = path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
    const [scope, bare] = name.startsWith("@") ? name.split("/") : [undefined, name];
    purls.add(`pkg:npm/${scope ? `${encodeURIComponent(scope)}/` : ""}${bare}@${pkg.version}`);
  }
  return purls;
}

/** The PyPI purls a pinned requirements.txt names (PEP 503 names). */
function requirementPurls(text: string): Set<string> {
  const purls = new Set<string>();
  for (const line of text.split("\n")) {
    const m = /^\s*([A-Za-z0-9._-]+)\s*==\s*([^\s;#]+)/.exec(line);
    if (m) purls.add(`pkg:pypi/${m[1]!.toLowerCase().replace(/[._]+/g, "-")}@${m[2]}`);
  }
  return purls;
}

/** The Go modules a go.mod requires (require blocks and lines), and the modules its replace directives put instead. */
function goModPurls(text: string): Set<string> {
  const purls = new Set<string>();
  let inRequire = false;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\/\/.*$/, "").trim();
    if (line === "require (") inRequire = true;
    else if (inRequire && line === ")") inRequire = false;
    else {
      const required = inRequire ? /^(\S+)\s+(v\S+)$/.exec(line) : /^require\s+(\S+)\s+(v\S+)$/.exec(line);
      const replaced = /^replace\s+\S+(?:\s+v\S+)?\s+=>\s+(\S+)\s+(v\S+)$/.exec(line);
      const [, path, version] = required ?? replaced ?? [];
      if (path && version) purls.add(`pkg:golang/${path}@${version}`);
    }
  }
  return purls;
}

/**
 * The Maven dependencies a pom.xml's project-level <dependencies> names (not its plugins'), as purls: with the version
 * the pom itself gives (a literal or one of its <properties>), without one where a parent's dependencyManagement would
 * give it.
 */
function pomPurls(text: string): Set<string> {
  const properties = new Map<string, string>();
  for (const [, key, value] of text
    .slice(text.indexOf("<properties>"), text.indexOf("</properties>"))
    .matchAll(/<([\w.-]+)>([^<]*)<\/\1>/g))
    properties.set(key!, value!.trim());
  const block = text.slice(text.indexOf("\n  <dependencies>"), text.indexOf("\n  </dependencies>"));
  const purls = new Set<string>();
  for (const [, body] of block.matchAll(/<dependency>([\s\S]*?)<\/dependency>/g)) {
    const field = (name: string) => new RegExp(`<${name}>([^<]+)</${name}>`).exec(body!)?.[1]?.trim();
    const version = field("version")?.replace(/^\$\{(.+)\}$/, (_, key: string) => properties.get(key) ?? "");
    purls.add(`pkg:maven/${field("groupId")}/${field("artifactId")}${version ? `@${version}` : ""}`);
  }
  return purls;
}

/** The PyPI purls of every [[package]] a uv.lock pins (the project's own editable package included). */
function uvLockPurls(text: string): Set<string> {
  const purls = new Set<string>();
  for (const [, name, version] of text.matchAll(/\[\[package\]\]\nname = "([^"]+)"\nversion = "([^"]+)"/g))
    purls.add(`pkg:pypi/${name!.toLowerCase().replace(/[._-]+/g, "-")}@${version}`);
  return purls;
}

/** A stored purl as the manifests spell it: percent-decoded (Go's +incompatible), without qualifiers (?type=jar). */
const plainPurl = (purl: string) => decodeURIComponent(purl.split("?")[0]!);

async function expectNothingStored(projectId: string, scan: Record<string, unknown>) {
  expect((await call("GET", `/v1/projects/${projectId}/components`)).json).toMatchObject({ total: 0 });
  await expect(stat(join(artefactDir, `scans/${scan.id as string}/inventory.binpb`))).rejects.toThrow();
}

/**
 * The npm remediation dry-run without a manifest edits the package.json the scan preserved (docs/scm.md): the same
 * answer as for those bytes sent as `manifest`, and only the lines of the bumped packages differ from them.
 */
async function expectPreservedDryRun(projectId: string, scanId: string, original: string): Promise<void> {
  const path = `/v1/projects/${projectId}/remediation/npm/dry-run`;
  const preserved = await call("POST", path, {});
  expect(preserved.status).toBe(200);
  expect(preserved.json).toMatchObject({
    scan_id: scanId,
    manifest_source: "preserved_source",
    manifest_found: true,
    changed: true,
  });
  const sent = await call("POST", path, { manifest: original });
  expect(sent.json.manifest_source).toBe("override");
  for (const field of ["changed", "edited_manifest", "recommendations", "changes", "warnings"])
    expect(preserved.json[field]).toEqual(sent.json[field]);
  const bumps = (preserved.json.changes as { package: string; before: string; after: string; changed: boolean }[])
    .filter((c) => c.changed)
    .map((c) => `"${c.package}": "${c.after}"`);
  expect(bumps.length).toBeGreaterThan(0);
  const before = original.split("\n");
  const after = (preserved.json.edited_manifest as string).split("\n");
  expect(after).toHaveLength(before.length);
  const differing = after.filter((line, i) => line !== before[i]).map((line) => line.trim().replace(/,$/, ""));
  expect(differing.sort()).toEqual(bumps.sort());
}

beforeAll(async () => {
  git = await startGitServer();
  privateGit = await startGitServer({ credential: CREDENTIAL });
  await git.repo("nodegoat", await manifests("nodegoat"));
  await git.repo("pygoat", await manifests("pygoat"), { tags: ["v1.0"] });
  await privateGit.repo("pygoat", await manifests("pygoat"));
  await git.repo("ripgrep", await manifests("ripgrep"));
  for (const name of ["gh-cli", "spring-petclinic", "flask", "dvna"]) await git.repo(name, await manifests(name));

  stack = await startSourceScanStack({
    name: "source-scan",
    personName: "Source Person",
    runnerEnv: {
      // Every component the lockfile pins, dev dependencies included, so the count is the lockfile's.
      SCAN_SCOPE_FILTER_ENABLED: "false",
      SOURCE_ARCHIVE_MAX_ENTRIES: "40",
      SOURCE_ARCHIVE_MAX_EXPANDED_BYTES: String(8 * 1024 ** 2),
      TASK_WORKER_CONCURRENCY: "2",
      // The scancode stage is not what this file is about (first-party-licenses.test.ts and the runner's
      // scancode-stage.test.ts are): off, it saves scancode's start, about 15 CPU-seconds, for each new tree.
      SCANCODE_MAX_FILES: "0",
    },
  });
  ({ artefactDir, events, gateway, teamId, dev } = stack);
}, 180_000);

afterAll(async () => {
  await stack?.close();
  await git?.stop();
  await privateGit?.stop();
}, 120_000);

describe("source scans of real projects", () => {
  it("clones an npm project's default branch and stores every package its lockfile pins", async () => {
    const id = await project({ git_url: `http://localhost:${git.port}/nodegoat.git` });
    const scan = await scanOf(id);
    expect(scan).toMatchObject({ status: "succeeded", error_message: null });

    const lock = packageLockOf(await readFile(join(MANIFESTS, "nodegoat/package-lock.json"), "utf8"));
    const expected = lockfilePurls(lock);
    const stored = await componentsOf(id);
    expect(stored).toHaveLength(expected.size);
    expect(new Set(stored.map((c) => c.purl))).toEqual(expected);
    const express = stored.find((c) => c.name === "express");
    expect(express?.version).toBe(lock.packages["node_modules/express"]!.version);

    // The stages, in the spec's vocabulary, and the tools' lines on their own streams.
    const steps = (await events.waitFor(ScanProgressSchema, (p) => p.scanId === scan.id && !p.heartbeat, 0)).map(
      (p) => p.step,
    );
    expect(steps.slice(0, 3)).toEqual(["sbom", "clone", "cdxgen"]);
    expect(steps).toContain("ingest");
    const lines = await events.waitFor(ScanLogLineSchema, (l) => l.scanId === scan.id, 0);
    expect(lines.some((l) => l.stage === "clone" && /Checked out [0-9a-f]{40}/.test(l.line))).toBe(true);
    expect(lines.some((l) => l.stage === "cdxgen" && l.stream === "stdout")).toBe(true);
    expect(lines.some((l) => l.stage === "cdxgen" && l.stream === "stderr")).toBe(true);

    await expectPreservedDryRun(id, scan.id as string, (await manifests("nodegoat"))["package.json"]!.toString("utf8"));
  }, 240_000);

  it("clones a PyPI project's named branch with the project's git credential", async () => {
    const id = await project({ git_url: `http://localhost:${privateGit.port}/pygoat.git` });
    const before = privateGit.requests.length;
    const refused = await scanOf(id);
    expect(refused).toMatchObject({ status: "failed" });
    expect(refused.error_message).toBe(
      "The git server refused the clone (no such repository, or the git_credential is missing or not accepted).",
    );
    await expectNothingStored(id, refused);

    expect(
      (await call("PATCH", `/v1/projects/${id}`, { git_credential: `${CREDENTIAL.user}:${CREDENTIAL.password}` }))
        .status,
    ).toBe(200);
    const scan = await scanOf(id, { ref: "main" });
    expect(scan).toMatchObject({ status: "succeeded", error_message: null });
    expect(privateGit.requests.slice(before).some((r) => r.authorized)).toBe(true);
    const expected = requirementPurls(await readFile(join(MANIFESTS, "pygoat/requirements.txt"), "utf8"));
    const stored = await componentsOf(id);
    expect(new Set(stored.map((c) => c.purl))).toEqual(expected);
    expect(stored).toHaveLength(expected.size);
    // The credential is in no log line.
    const lines = await events.waitFor(ScanLogLineSchema, (l) => l.scanId === scan.id, 0);
    expect(lines.map((l) => l.line).join("\n")).not.toContain(CREDENTIAL.password);
  }, 240_000);

  it("scans at a tag ref", async () => {
    const id = await project({ git_url: `http://localhost:${git.port}/pygoat.git` });
    const scan = await scanOf(id, { ref: "refs/tags/v1.0" });
    expect(scan).toMatchObject({ status: "succeeded" });
    expect((await call("GET", `/v1/projects/${id}/components`)).json).toMatchObject({ total: 34 });
  }, 240_000);

  it("clones a Cargo workspace and stores every package of its Cargo.lock", async () => {
    const id = await project({ git_url: `http://localhost:${git.port}/ripgrep.git` });
    const scan = await scanOf(id);
    expect(scan).toMatchObject({ status: "succeeded", error_message: null });
    const lock = await readFile(join(MANIFESTS, "ripgrep/Cargo.lock"), "utf8");
    // The workspace's own package is the SBOM's primary component (the project itself), not one of its components.
    const root = /\[package\]\s*\nname = "([^"]+)"/.exec(
      await readFile(join(MANIFESTS, "ripgrep/Cargo.toml"), "utf8"),
    )![1];
    const pinned = [...lock.matchAll(/\[\[package\]\]\nname = "([^"]+)"\nversion = "([^"]+)"/g)]
      .filter((m) => m[1] !== root)
      .map((m) => `${m[1]}@${m[2]}`);
    expect(pinned.length).toBeGreaterThan(50);
    const stored = await componentsOf(id);
    expect(new Set(stored.map((c) => `${c.name}@${c.version}`))).toEqual(new Set(pinned));
    expect(stored).toHaveLength(pinned.length);
    expect(stored.every((c) => c.purl.startsWith("pkg:cargo/"))).toBe(true);
  }, 240_000);

  it("scans an uploaded .zip of the npm project as it scans the clone", async () => {
    const id = await project();
    const files = await manifests("nodegoat");
    const archiveId = await uploadArchive(
      id,
      zipOf([
        { name: "nodegoat/" },
        ...Object.entries(files).map(([name, data]) => ({ name: `nodegoat/${name}`, data, deflate: true })),
      ]),
    );
    const scan = await scanOf(id, { source_archive_id: archiveId });
    expect(scan).toMatchObject({ status: "succeeded", error_message: null });
    const lock = packageLockOf(files["package-lock.json"]!.toString("utf8"));
    expect(new Set((await componentsOf(id)).map((c) => c.purl))).toEqual(lockfilePurls(lock));
    // The package.json the archive wraps in its one directory is the one preserved.
    await expectPreservedDryRun(id, scan.id as string, files["package.json"]!.toString("utf8"));
  }, 240_000);

  it("scans an uploaded .tar.gz of the PyPI project and stores every pinned requirement", async () => {
    const id = await project();
    const files = await manifests("pygoat");
    const tarball = gzipSync(
      await tarOf([
        { name: "pygoat/" },
        ...Object.entries(files).map(([name, data]) => ({ name: `pygoat/${name}`, data })),
      ]),
    );
    const scan = await scanOf(id, { source_archive_id: await uploadArchive(id, tarball) });
    expect(scan).toMatchObject({ status: "succeeded", error_message: null });
    const expected = requirementPurls(files["requirements.txt"]!.toString("utf8"));
    expect(new Set((await componentsOf(id)).map((c) => c.purl))).toEqual(expected);
  }, 240_000);
});

describe("source scans of the Go, Maven, uv and bare package.json projects, from their manifests alone", () => {
  type Stored = { purl: string; version: string | null; name: string; license: string | null };
  async function scanned(repo: string): Promise<{ id: string; stored: Stored[] }> {
    const id = await project({ git_url: `http://localhost:${git.port}/${repo}.git` });
    const scan = await scanOf(id);
    expect(scan).toMatchObject({ status: "succeeded", error_message: null });
    return { id, stored: (await componentsOf(id)) as Stored[] };
  }

  it("stores every module gh-cli's go.mod requires, at the version it requires, without running go", async () => {
    const gomod = await readFile(join(MANIFESTS, "gh-cli/go.mod"), "utf8");
    const expected = goModPurls(gomod);
    expect(expected.size).toBeGreaterThan(150);
    // And Go's standard library and toolchain, at the release of its toolchain directive (docs/source-scans.md).
    const release = /^toolchain go(\S+)$/m.exec(gomod)?.[1];
    expect(release).toBe("1.22.6");
    const goRelease = [`pkg:golang/stdlib@${release}`, `pkg:golang/toolchain@${release}`];
    const { id, stored } = await scanned("gh-cli");
    expect(stored).toHaveLength(expected.size + 2);
    expect(new Set(stored.map((c) => plainPurl(c.purl)))).toEqual(new Set([...expected, ...goRelease]));
    // Versions as go.mod spells them, +incompatible and pseudo-versions included; go.sum holds the checksum of each
    // but the one module the replace directive swaps for cli's fork (which go.sum holds instead).
    const gosum = await readFile(join(MANIFESTS, "gh-cli/go.sum"), "utf8");
    const notInGoSum = stored.filter((c) => {
      const purl = plainPurl(c.purl);
      expect(purl.endsWith(`@${c.version}`)).toBe(true);
      return !gosum.includes(`\n${purl.slice("pkg:golang/".length, purl.lastIndexOf("@"))} ${c.version}/go.mod `);
    });
    expect(notInGoSum.map((c) => plainPurl(c.purl)).sort()).toEqual(
      ["pkg:golang/github.com/rogpeppe/go-internal@v1.13.1", ...goRelease].sort(),
    );
    expect(stored.find((c) => c.purl.includes("docker/cli"))?.version).toBe("v27.1.1+incompatible");
    // go.mod and go.sum name no license; Go's own is BSD-3-Clause.
    const licensed = stored.filter((c) => c.license).map((c) => `${plainPurl(c.purl)} ${c.license}`);
    expect(licensed.sort()).toEqual(goRelease.map((purl) => `${purl} BSD-3-Clause`));
    // Matched against the shipped advisories: the standard library's 58 (as OSV-Scanner finds them,
    // services/scanner-runner/test/manifests-oracle.test.ts) and the toolchain's 11 beside the modules' findings.
    const findings = await call("GET", `/v1/projects/${id}/vulnerabilities?limit=500`);
    expect(findings.status).toBe(200);
    const items = findings.json.items as { component_name: string; component_version: string }[];
    expect(findings.json.total).toBe(items.length);
    const onRelease = (name: string) =>
      items.filter((f) => f.component_name === name && f.component_version === release).length;
    expect({ stdlib: onRelease("stdlib"), toolchain: onRelease("toolchain") }).toEqual({ stdlib: 58, toolchain: 11 });
    expect(items.length).toBeGreaterThan(58 + 11);
  }, 240_000);

  it("stores spring-petclinic's pom.xml dependencies without running mvn, versions where the pom gives them", async () => {
    const pom = await readFile(join(MANIFESTS, "spring-petclinic/pom.xml"), "utf8");
    const expected = pomPurls(pom);
    expect(expected.size).toBeGreaterThan(20);
    const { stored } = await scanned("spring-petclinic");
    expect(stored).toHaveLength(expected.size);
    expect(new Set(stored.map((c) => plainPurl(c.purl)))).toEqual(expected);
    // The pom's own properties give the webjars' versions; the parent's dependencyManagement (not read without mvn)
    // gives the others', so those have none rather than a guessed one.
    expect(stored.find((c) => c.purl.startsWith("pkg:maven/org.webjars.npm/bootstrap@"))?.version).toBe(
      /<webjars-bootstrap.version>([^<]+)</.exec(pom)![1],
    );
    const unversioned = stored.filter((c) => !plainPurl(c.purl).includes("@"));
    expect(unversioned.length).toBeGreaterThan(15);
    expect(unversioned.every((c) => !c.version)).toBe(true);
    expect(stored.filter((c) => c.license)).toEqual([]);
  }, 240_000);

  it("stores every package of flask's uv.lock, flask itself (editable) included", async () => {
    const expected = uvLockPurls(await readFile(join(MANIFESTS, "flask/uv.lock"), "utf8"));
    expect(expected.size).toBeGreaterThan(80);
    const { stored } = await scanned("flask");
    expect(stored).toHaveLength(expected.size);
    expect(new Set(stored.map((c) => plainPurl(c.purl)))).toEqual(expected);
    expect(stored.filter((c) => c.license)).toEqual([]);
  }, 240_000);

  it("never runs a repository's own Maven wrapper (project code), and still reads its pom.xml", async () => {
    // Where the wrapper would leave its mark: a directory anyone (the sandbox user too) may write to.
    const marks = await mkdtemp(join(tmpdir(), "sca-mvnw-"));
    await chmod(marks, 0o1777);
    const mark = join(marks, "mvnw-ran");
    const wrapper = `#!/bin/sh\ntouch ${mark}\nexit 1\n`;
    const pom = (await manifests("spring-petclinic"))["pom.xml"]!;
    await git.repo("wrapped", { "pom.xml": pom, mvnw: wrapper }, { executable: ["mvnw"] });
    try {
      const { stored } = await scanned("wrapped");
      expect(stored).toHaveLength(pomPurls(await readFile(join(MANIFESTS, "spring-petclinic/pom.xml"), "utf8")).size);
      await expect(stat(mark)).rejects.toThrow();
    } finally {
      await rm(marks, { recursive: true, force: true });
    }
  }, 240_000);

  it("succeeds with no components for dvna, whose package.json pins no version and has no lockfile", async () => {
    const pkg = JSON.parse(await readFile(join(MANIFESTS, "dvna/package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    // Every dependency is a range (^x, or 0.0.x, which npm reads as a version but cdxgen does not resolve without
    // a lockfile or node_modules): nothing the file alone pins.
    expect(Object.keys(pkg.dependencies).length).toBe(19);
    expect((await scanned("dvna")).stored).toEqual([]);
  }, 240_000);
});

describe("source scans refuse what they must not touch", () => {
  const refusals: [string, string, RegExp][] = [
    [
      "loopback without the allow-list",
      "http://127.0.0.1:{port}/nodegoat.git",
      /resolves to 127\.0\.0\.1, a loopback, private or link-local address .*SCAN_GIT_ALLOWED_HOSTS/,
    ],
    [
      "a private address",
      "http://10.20.30.40/repo.git",
      /resolves to 10\.20\.30\.40, a loopback, private or link-local/,
    ],
    [
      "the link-local metadata address",
      "http://169.254.169.254/latest.git",
      /resolves to 169\.254\.169\.254, a loopback, private/,
    ],
    ["an ssh address", "ssh://git@localhost/repo.git", /uses ssh, which this scanner does not clone/],
  ];
  it.each(refusals)(
    "fails a clone from %s",
    async (_what, url, message) => {
      const id = await project({ git_url: url.replace("{port}", String(git.port)) });
      const scan = await scanOf(id);
      expect(scan).toMatchObject({ status: "failed" });
      expect(scan.error_message).toMatch(message);
      await expectNothingStored(id, scan);
    },
    60_000,
  );

  it("never stores a file:// or ext:: address to clone from (422 at the edge)", async () => {
    for (const git_url of ["file:///etc", "ext::sh -c touch% /tmp/pwned"]) {
      const slug = `src-${randomUUID().slice(0, 8)}`;
      const created = await call("POST", "/v1/projects", { name: `P ${slug}`, slug, team_id: teamId, git_url });
      expect(created.status).toBe(422);
    }
  });

  it("fails a source scan of a project with neither git_url nor archive", async () => {
    const id = await project();
    const scan = await scanOf(id);
    expect(scan).toMatchObject({
      status: "failed",
      error_message: "The project has no git_url to clone; set one, or upload a source archive.",
    });
  }, 60_000);

  const bombBody = Buffer.alloc(20 * 1024 ** 2);
  const archives: [string, Parameters<typeof zipOf>[0], RegExp][] = [
    [
      "../ entries",
      [
        { name: "ok.txt", data: "x" },
        { name: "a/../../escape.txt", data: "x" },
      ],
      /climbing out of the tree with \.\. \(a\/\.\.\/\.\.\/escape\.txt\)/,
    ],
    [
      "an absolute path",
      [{ name: "/etc/cron.d/x", data: "x" }],
      /an entry with an absolute path \(\/etc\/cron\.d\/x\)/,
    ],
    [
      "a zip bomb",
      [{ name: "zeros.bin", data: bombBody, deflate: true }],
      /expands past SOURCE_ARCHIVE_MAX_EXPANDED_BYTES \(8388608 bytes\)/,
    ],
    [
      "a zip bomb whose header lies",
      [{ name: "zeros.bin", data: bombBody, deflate: true, declaredSize: 1000 }],
      /corrupt/,
    ],
    [
      "a symlink escaping the tree",
      [
        { name: "package.json", data: "{}" },
        { name: "passwd", symlinkTo: "../../../../etc/passwd" },
      ],
      /symbolic link leading outside the tree \(passwd\)/,
    ],
    ["an absolute symlink", [{ name: "lib", symlinkTo: "/etc" }], /symbolic link leading outside the tree \(lib\)/],
    [
      "too many entries",
      Array.from({ length: 41 }, (_, i) => ({ name: `f${i}.txt`, data: "x" })),
      /holds 41 entries; SOURCE_ARCHIVE_MAX_ENTRIES allows 40/,
    ],
  ];
  it.each(archives)(
    "fails an archive with %s",
    async (_what, entries, message) => {
      const id = await project();
      const scan = await scanOf(id, { source_archive_id: await uploadArchive(id, zipOf(entries)) });
      expect(scan).toMatchObject({ status: "failed" });
      expect(scan.error_message).toMatch(message);
      await expectNothingStored(id, scan);
    },
    60_000,
  );
});
