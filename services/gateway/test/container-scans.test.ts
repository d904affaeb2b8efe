// Container scans end to end (docs/container-scans.md): the gateway, identity, projects, the scan-orchestrator and
// the scanner-runner on the real servers; a real OCI registry on loopback (go-containerregistry's cmd/registry,
// reached through SCAN_REGISTRY_ALLOWED_HOSTS=localhost) holding an image this test builds from real data
// (test/fixtures/debian-bookworm: a Debian 12 dpkg database and copyright files, npm packages' published
// package.json); cdxgen (and the trivy of its plugins) building the SBOM from the unpacked layers. What the scan
// stored is checked against those files, parsed here on their own. Bad images fail the scan with a clear
// error_message and leave no components behind. A private copy of the registry (the test kit's auth proxy in front
// of it, asking for a token from its realm with the login) is pulled with the organization's registry login, kept
// through the gateway's admin route: admin unseals it for the runner, identity places the team in its organization.
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { TOPICS } from "@sca/kafka";
import { ScanLogLineSchema, ScanProgressSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import {
  closeTogether,
  callAs,
  dockerSaveOf,
  EventReader,
  fixturesOf,
  ociLayoutFromRegistry,
  startOciRegistry,
  startRegistryAuthProxy,
  startService,
  tarOf,
  uniqueName,
  type RegistryAuthProxy,
  type TestOciRegistry,
  type TestService,
} from "@sca/testkit";
import { startTestGateway, type TestGateway } from "./harness.ts";

const FIXTURES = fileURLToPath(new URL("./fixtures/debian-bookworm/", import.meta.url));
const NPM_PACKAGES = ["yauzl", "buffer-crc32", "pend"];

let artefactDir: string;
let registry: TestOciRegistry;
let appImage: Awaited<ReturnType<typeof debianAppImage>>;
/** The same registry behind a login (Bearer tokens from its realm, for the login as Basic auth). */
let privateRegistry: RegistryAuthProxy;
const PRIVATE_LOGIN = { username: "image-puller", password: "pull-Secret-7f3a9c" };
let adminService: TestService;
let root: string;
let organizationId: string;
let identity: TestService;
let projects: TestService;
let scans: TestService;
let runner: TestService;
let gateway: TestGateway;
let events: EventReader;
let dev: string;
let teamId: string;

async function call(method: string, path: string, body?: unknown, bearer = dev) {
  const res = await fetch(`${gateway.origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function project(): Promise<string> {
  const slug = `img-${randomUUID().slice(0, 8)}`;
  const created = await call("POST", "/v1/projects", { name: `P ${slug}`, slug, team_id: teamId });
  expect(created.status).toBe(201);
  return created.json.id as string;
}

async function scanOf(projectId: string, ref: string, imageArchiveId?: string): Promise<Record<string, unknown>> {
  const created = await call("POST", `/v1/projects/${projectId}/scans`, {
    kind: "container",
    ...(ref ? { ref } : {}),
    ...(imageArchiveId ? { image_archive_id: imageArchiveId } : {}),
  });
  expect(created.status).toBe(202);
  let scan = created.json;
  for (const deadline = Date.now() + 180_000; !["succeeded", "failed", "cancelled"].includes(scan.status as string);) {
    if (Date.now() > deadline) throw new Error(`the scan is still ${scan.status as string}`);
    await delay(250);
    scan = (await call("GET", `/v1/scans/${created.json.id as string}`)).json;
  }
  return scan;
}

/** Uploads `archive` as the project's image archive through the gateway (multipart field upload). */
async function uploadImageArchive(projectId: string, archive: Buffer, fileName: string) {
  const form = new FormData();
  form.append("upload", new Blob([new Uint8Array(archive)]), fileName);
  const res = await fetch(`${gateway.origin}/v1/projects/${projectId}/image-archives`, {
    method: "POST",
    headers: { authorization: `Bearer ${dev}` },
    body: form,
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** The Debian packages and npm packages of the test image, as the scan must store them. */
async function expectAppInventory(stored: Stored[]): Promise<void> {
  const statusFile = await readFile(join(FIXTURES, "status"), "utf8");
  for (const pkg of dpkgPackages(statusFile))
    expect(stored.find((c) => c.name === pkg.name && c.purl.startsWith("pkg:deb/"))?.version).toBe(pkg.version);
  for (const name of NPM_PACKAGES) {
    const manifest = JSON.parse(await readFile(join(FIXTURES, `npm/${name}.package.json`), "utf8")) as {
      version: string;
      license: string;
    };
    expect(stored.find((c) => c.name === name)).toMatchObject({
      purl: `pkg:npm/${name}@${manifest.version}`,
      license: manifest.license,
    });
  }
  expect(stored.some((c) => c.name === "pend-old")).toBe(false);
}

type Stored = { purl: string; version: string; name: string; license: string | null };

async function componentsOf(projectId: string): Promise<Stored[]> {
  const page = await call("GET", `/v1/projects/${projectId}/components?limit=500`);
  expect(page.status).toBe(200);
  return page.json.items as Stored[];
}

/** Package name, version and source package of each stanza of a dpkg status file. */
function dpkgPackages(status: string): { name: string; version: string; source?: string }[] {
  return status
    .split(/\n\n+/)
    .filter((s) => s.trim())
    .map((stanza) => {
      const field = (f: string) => new RegExp(`^${f}: (.*)$`, "m").exec(stanza)?.[1];
      return { name: field("Package")!, version: field("Version")!, source: field("Source")?.split(" ")[0] };
    });
}

const file = (name: string) => readFile(join(FIXTURES, name));

/** A Debian 12 base layer and an application layer holding an installed npm tree (one package whited out). */
async function debianAppImage() {
  const base = await tarOf([
    { name: "etc/os-release", data: await file("os-release") },
    { name: "etc/debian_version", data: await file("debian_version") },
    { name: "var/lib/dpkg/status", data: await file("status") },
    { name: "usr/share/doc/zlib1g/copyright", data: await file("zlib1g.copyright") },
    { name: "usr/share/doc/libzstd1/copyright", data: await file("libzstd1.copyright") },
    { name: "bin", symlinkTo: "/usr/bin" },
    // A package a later layer deletes: it must not be inventoried.
    { name: "app/node_modules/pend-old/package.json", data: await file("npm/pend.package.json") },
  ]);
  const app = await tarOf([
    { name: "app/package.json", data: JSON.stringify({ name: "image-app", version: "1.0.0", private: true }) },
    ...(await Promise.all(
      NPM_PACKAGES.map(async (p) => ({
        name: `app/node_modules/${p}/package.json`,
        data: await file(`npm/${p}.package.json`),
      })),
    )),
    { name: "app/node_modules/.wh.pend-old", data: "" },
  ]);
  return { layers: [base, app] };
}

beforeAll(async () => {
  artefactDir = await mkdtemp(join(tmpdir(), "sca-container-scans-"));
  registry = await startOciRegistry();
  appImage = await debianAppImage();
  await registry.push("team/app", "1.0", appImage);
  await registry.push("team/evil", "1", {
    layers: [await tarOf([{ name: "app/../../../../etc/cron.d/x", data: "* * * * * root true\n" }])],
  });

  privateRegistry = await startRegistryAuthProxy(registry.port, { scheme: "bearer", ...PRIVATE_LOGIN });
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const KAFKA_TOPIC_PREFIX = `${uniqueName("container_scan")}.`;
  const store = { ARTEFACT_DIR: artefactDir };
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  projects = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX, ...store } });
  scans = await startService("scan-orchestrator", {
    env: { PROJECTS_RPC_URL: projects.url!, KAFKA_TOPIC_PREFIX, ...store, SCAN_JOB_MAX_ATTEMPTS: "1" },
  });
  adminService = await startService("admin", { env: { KAFKA_TOPIC_PREFIX } });
  runner = await startService("scanner-runner", {
    env: {
      PROJECTS_RPC_URL: projects.url!,
      IDENTITY_RPC_URL: identity.url!,
      ADMIN_RPC_URL: adminService.url!,
      KAFKA_TOPIC_PREFIX,
      ...store,
      SCAN_REGISTRY_ALLOWED_HOSTS: "localhost",
      SCAN_REGISTRY_PLAIN_HTTP_HOSTS: `${registry.host},${privateRegistry.host}`,
      TASK_WORKER_CONCURRENCY: "2",
    },
  });
  events = await EventReader.start(runner.kafka!, TOPICS.scanEvents);
  gateway = await startTestGateway({
    identity: { url: identity.url!, answerNamespace },
    services: { projects: projects.url!, "scan-orchestrator": scans.url!, admin: adminService.url! },
    env: store,
  });
  const fixtures = await fixturesOf("identity");
  const admin = await callAs.superAdmin(randomUUID());
  const slug = `team-${randomUUID().slice(0, 8)}`;
  const { team } = await identity.client(DirectoryService).createTeam({ name: `Team ${slug}`, slug }, admin);
  teamId = team!.id;
  organizationId = team!.organizationId!;
  root = await fixtures.accessToken(await fixtures.user(identity.orm, { superAdmin: true }));
  const userId = await fixtures.user(identity.orm, { fullName: "Image Person" });
  await identity.client(DirectoryService).addTeamMember({ teamId, userId, role: "team_admin" }, admin);
  dev = await fixtures.accessToken(userId);
}, 180_000);

afterAll(async () => {
  await events?.stop();
  await closeTogether([gateway, runner, adminService, scans, projects, identity]);
  await privateRegistry?.stop();
  await registry?.stop();
  await rm(artefactDir, { recursive: true, force: true });
}, 120_000);

describe("container scans", () => {
  it("pulls an image from the registry and stores its Debian packages and its installed npm packages", async () => {
    const id = await project();
    const scan = await scanOf(id, `${registry.host}/team/app:1.0`);
    expect(scan).toMatchObject({ status: "succeeded", error_message: null });

    const stored = await componentsOf(id);
    const debian = stored.filter((c) => c.purl.startsWith("pkg:deb/debian/"));
    // Every binary package of the dpkg database at its version, and the source packages they name; nothing else.
    const expected = new Map<string, string>();
    for (const pkg of dpkgPackages(await readFile(join(FIXTURES, "status"), "utf8"))) {
      expected.set(pkg.name, pkg.version);
      if (pkg.source) expected.set(pkg.source, pkg.version);
    }
    expect(new Map(debian.map((c) => [c.name, c.version]))).toEqual(expected);
    for (const c of debian) expect(c.purl).toMatch(/[?&]distro=debian-12(&|$)/);
    // The epoch of zlib1g's version is the purl's qualifier, as the purl spec has it for deb.
    expect(debian.find((c) => c.name === "zlib1g")!.purl).toMatch(/[?&]epoch=1(&|$)/);
    // The license the package's machine-readable copyright file declares.
    expect(debian.find((c) => c.name === "zlib1g")!.license).toBe("Zlib");

    // The installed npm packages, with the version and license their package.json say; the whited-out one is gone.
    const npm = stored.filter((c) => c.purl.startsWith("pkg:npm/"));
    for (const name of NPM_PACKAGES) {
      const manifest = JSON.parse(await readFile(join(FIXTURES, `npm/${name}.package.json`), "utf8")) as {
        version: string;
        license: string;
      };
      expect(npm.find((c) => c.name === name)).toMatchObject({
        purl: `pkg:npm/${name}@${manifest.version}`,
        version: manifest.version,
        license: manifest.license,
      });
    }
    expect(npm.filter((c) => c.name === "pend")).toHaveLength(1);
    expect(stored.some((c) => c.name === "pend-old")).toBe(false);

    const steps = (await events.waitFor(ScanProgressSchema, (p) => p.scanId === scan.id && !p.heartbeat, 0)).map(
      (p) => p.step,
    );
    expect(steps.slice(0, 3)).toEqual(["sbom", "pull", "cdxgen"]);
  }, 240_000);

  it("fails an image whose layer climbs out of the tree, and a registry the runner may not reach, storing nothing", async () => {
    const evil = await project();
    const climbing = await scanOf(evil, `${registry.host}/team/evil:1`);
    expect(climbing).toMatchObject({
      status: "failed",
      error_message:
        "The image's layer 1 holds an entry climbing out of the tree with .. (app/../../../../etc/cron.d/x).",
    });
    expect((await call("GET", `/v1/projects/${evil}/components`)).json).toMatchObject({ total: 0 });
    await expect(stat(join(artefactDir, `scans/${climbing.id as string}/inventory.binpb`))).rejects.toThrow();

    const loopback = await project();
    const refused = await scanOf(loopback, `127.0.0.1:${registry.port}/team/app:1.0`);
    expect(refused).toMatchObject({
      status: "failed",
      error_message:
        "The image's registry resolves to 127.0.0.1, a loopback, private or link-local address the scanner does " +
        "not pull from; an operator may allow it with SCAN_REGISTRY_ALLOWED_HOSTS.",
    });

    const missing = await scanOf(loopback, `${registry.host}/team/app:2.0`);
    expect(missing).toMatchObject({
      status: "failed",
      error_message: `The registry has no image ${registry.host}/team/app at 2.0.`,
    });
  }, 120_000);

  it("pulls a private image with the organization's registry login, and fails clearly while it keeps none", async () => {
    const id = await project();
    const ref = `${privateRegistry.host}/team/app:1.0`;
    const without = await scanOf(id, ref);
    expect(without).toMatchObject({
      status: "failed",
      error_message:
        `The image's registry (${privateRegistry.host}) asks for a login, and the project's organization keeps no ` +
        "registry login for it; a super admin adds one under the organization's registry credentials.",
    });
    expect((await call("GET", `/v1/projects/${id}/components`)).json).toMatchObject({ total: 0 });

    // A super admin keeps the login, pasted as a URL; the next scan pulls with it.
    const kept = await call(
      "PUT",
      `/v1/admin/organizations/${organizationId}/registry-credentials`,
      { registry_host: `http://${privateRegistry.host}/v2/`, ...PRIVATE_LOGIN },
      root,
    );
    expect(kept.status).toBe(201);
    expect(kept.json).toMatchObject({ registry_host: privateRegistry.host, username: PRIVATE_LOGIN.username });
    const pulled = await scanOf(id, ref);
    expect(pulled).toMatchObject({ status: "succeeded", error_message: null });
    const stored = await componentsOf(id);
    const statusFile = await readFile(join(FIXTURES, "status"), "utf8");
    for (const pkg of dpkgPackages(statusFile))
      expect(stored.find((c) => c.name === pkg.name && c.purl.startsWith("pkg:deb/"))?.version).toBe(pkg.version);
    for (const name of NPM_PACKAGES) expect(stored.some((c) => c.purl.startsWith(`pkg:npm/${name}@`))).toBe(true);

    // The registry got the password only at its token realm; the scans' log lines never carry it.
    const basic = `Basic ${Buffer.from(`${PRIVATE_LOGIN.username}:${PRIVATE_LOGIN.password}`).toString("base64")}`;
    expect(
      new Set(privateRegistry.seen.filter((r) => r.authorization === basic).map((r) => r.path.split("?")[0])),
    ).toEqual(new Set(["/token"]));
    const lines = await events.waitFor(ScanLogLineSchema, (l) => l.scanId === pulled.id || l.scanId === without.id, 2);
    expect(lines.map((l) => l.line)).toContain(
      `Pulling with the organization's registry login for ${privateRegistry.host}.`,
    );
    for (const l of lines) expect(l.line).not.toContain(PRIVATE_LOGIN.password);
    expect(JSON.stringify([without, pulled, kept.json])).not.toContain(PRIVATE_LOGIN.password);
  }, 300_000);

  it("reads an uploaded docker save archive and an OCI layout of the registry's image like a pulled image", async () => {
    const saved = await project();
    const upload = await uploadImageArchive(saved, await dockerSaveOf(appImage, "team/app:1.0"), "app.tar");
    expect(upload.status).toBe(201);
    expect(upload.json).toMatchObject({ archive_id: expect.any(String), size_bytes: expect.any(Number) });
    const fromSave = await scanOf(saved, "", upload.json.archive_id as string);
    expect(fromSave).toMatchObject({ status: "succeeded", error_message: null });
    await expectAppInventory(await componentsOf(saved));

    // The image pushed to the registry, fetched into an OCI image layout and gzipped; the ref picks it by tag.
    const layout = await project();
    const oci = gzipSync(await ociLayoutFromRegistry(`http://127.0.0.1:${registry.port}`, "team/app", "1.0"));
    const ociUpload = await uploadImageArchive(layout, oci, "app-oci.tar.gz");
    expect(ociUpload.status).toBe(201);
    const fromLayout = await scanOf(layout, "team/app:1.0", ociUpload.json.archive_id as string);
    expect(fromLayout).toMatchObject({ status: "succeeded", error_message: null });
    await expectAppInventory(await componentsOf(layout));
    const lines = await events.waitFor(ScanLogLineSchema, (l) => l.scanId === fromLayout.id, 1);
    expect(lines.map((l) => l.line).find((l) => l.startsWith("Read the uploaded image archive"))).toMatch(
      /^Read the uploaded image archive \(oci-layout\): docker\.io\/team\/app:1\.0@sha256:[0-9a-f]{64}, 2 layers, /,
    );
  }, 300_000);

  it("fails a hostile or unnamed image archive clearly, and keeps the archive to container scans", async () => {
    const id = await project();
    const climbing = await uploadImageArchive(
      id,
      await tarOf([
        { name: "manifest.json", data: "[]" },
        { name: "../../etc/cron.d/x", data: "x" },
      ]),
      "evil.tar",
    );
    expect(climbing.status).toBe(201);
    expect(await scanOf(id, "", climbing.json.archive_id as string)).toMatchObject({
      status: "failed",
      error_message: "The uploaded image archive holds an entry climbing out of the tree with .. (../../etc/cron.d/x).",
    });
    const notImage = await uploadImageArchive(id, await tarOf([{ name: "hello.txt", data: "hi" }]), "x.tar");
    expect(await scanOf(id, "", notImage.json.archive_id as string)).toMatchObject({
      status: "failed",
      error_message:
        "The uploaded image archive is neither a docker save archive (manifest.json) nor an OCI image layout " +
        "(oci-layout and index.json).",
    });
    const saved = await uploadImageArchive(id, await dockerSaveOf(appImage, "team/app:1.0"), "app.tar");
    expect(await scanOf(id, "team/other:2", saved.json.archive_id as string)).toMatchObject({
      status: "failed",
      error_message: "The uploaded image archive holds no image named docker.io/team/other:2.",
    });
    expect((await call("GET", `/v1/projects/${id}/components`)).json).toMatchObject({ total: 0 });

    const wrongKind = await call("POST", `/v1/projects/${id}/scans`, {
      kind: "source",
      image_archive_id: saved.json.archive_id,
    });
    expect(wrongKind.status).toBe(422);
    const raw = await fetch(`${gateway.origin}/v1/projects/${id}/image-archives`, {
      method: "POST",
      headers: { authorization: `Bearer ${dev}`, "content-type": "application/x-tar" },
      body: "x",
    });
    expect(raw.status).toBe(415);
  }, 300_000);

  it("answers a container scan without an image reference with a problem document", async () => {
    const id = await project();
    const res = await fetch(`${gateway.origin}/v1/projects/${id}/scans`, {
      method: "POST",
      headers: { authorization: `Bearer ${dev}`, "content-type": "application/json" },
      body: JSON.stringify({ kind: "container" }),
    });
    expect(res.status).toBe(422);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  });
});
