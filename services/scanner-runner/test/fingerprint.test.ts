// The vendored-OSS fingerprint stage (docs/fingerprint.md) through a real runner and projects: source scans of an
// uploaded archive (cdxgen a stand-in writing a one-component SBOM, run as cdxgen is), the knowledge base a local
// HTTP server that records what it receives. It must receive SWHIDs only (as `git hash-object` computes them), never
// a byte of a file; what it knows with a purl becomes a component, a timeout skips the stage and the scan goes on.
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { TOPICS } from "@sca/kafka";
import { ScanAttemptFinishedSchema, ScanLogLineSchema, ScanProgressSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { closeTogether, callAs, EventReader, startService, zipOf, type TestService } from "@sca/testkit";
import { COMPONENT_SOURCE_PROPERTY } from "../src/domain/sbom/inventory.ts";
import { service } from "../src/service.ts";
import { artefactDirectory, makeProject, publishJobs, scanJob, upload } from "./support/scan-jobs.ts";
import { fakeCdxgen, type FakeCdxgen } from "./support/fake-cdxgen.ts";

const FAKE_CDXGEN = `
const { writeFileSync } = require("node:fs");
const args = process.argv.slice(2);
writeFileSync(args[args.indexOf("-o") + 1], JSON.stringify({
  bomFormat: "CycloneDX", specVersion: "1.6", version: 1,
  components: [{ type: "library", name: "left-pad", version: "1.3.0", purl: "pkg:npm/left-pad@1.3.0", licenses: [{ license: { id: "WTFPL" } }] }],
}));
`;

const SECRET = `fingerprint-secret-${randomUUID()}`;
const FILES = {
  "package.json": '{ "name": "app", "version": "1.0.0" }\n',
  "vendor/lodash/lodash.min.js": "/** @license lodash 4.17.21 */ (function(){ var undefined; }.call(this));\n",
  "vendor/readme-from-somewhere.txt": "A file the archive knows, from no package it can name.\n",
  "src/secret.js": `export const token = "${SECRET}";\n`,
};
const HANG_FILE = { "hang.txt": "the knowledge base never answers a request naming this file\n" };

interface Received {
  headers: IncomingMessage["headers"];
  body: string;
}

let artefacts: Awaited<ReturnType<typeof artefactDirectory>>;
let fake: FakeCdxgen;
let kb: { url: string; received: Received[]; server: Server; waiting: Set<ServerResponse> };
let swhids: Record<string, string>;
let identity: TestService;
let projects: TestService;
let runner: TestService;
let events: EventReader;

/** SWHIDs as git computes blob ids (the reference tool), of each file written to a scratch directory. */
async function gitSwhids(files: Record<string, string>): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), "sca-fp-files-"));
  try {
    const out: Record<string, string> = {};
    for (const [name, data] of Object.entries(files)) {
      const path = join(dir, name.replaceAll("/", "_"));
      await writeFile(path, data);
      out[name] = `swh:1:cnt:${execFileSync("git", ["hash-object", path], { encoding: "utf8" }).trim()}`;
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function startKnowledgeBase(): Promise<typeof kb> {
  const received: Received[] = [];
  const waiting = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ headers: req.headers, body });
      const asked = JSON.parse(body) as string[];
      if (asked.includes(swhids["hang.txt"]!)) {
        waiting.add(res);
        return;
      }
      // Software Heritage's /known/ answer, with the purl a knowledge base that knows packages adds.
      const answer = Object.fromEntries(
        asked.map((id) => [
          id,
          id === swhids["vendor/lodash/lodash.min.js"]
            ? { known: true, purl: "pkg:npm/lodash@4.17.21", license: "MIT" }
            : { known: id === swhids["vendor/readme-from-somewhere.txt"] },
        ]),
      );
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/1/known/`, received, server, waiting };
}

beforeAll(async () => {
  swhids = await gitSwhids({ ...FILES, ...HANG_FILE });
  artefacts = await artefactDirectory();
  fake = await fakeCdxgen(FAKE_CDXGEN);
  kb = await startKnowledgeBase();
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" },
  });
  projects = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url!, ARTEFACT_DIR: artefacts.dir } });
  runner = await startService(service, {
    env: {
      ARTEFACT_DIR: artefacts.dir,
      PROJECTS_RPC_URL: projects.url!,
      CDXGEN_BIN: fake.bin,
      SCAN_WORK_DIR: fake.workDir,
      FINGERPRINT_ENABLED: "true",
      FINGERPRINT_API_URL: kb.url,
      FINGERPRINT_API_KEY: "kb-test-key",
      FINGERPRINT_TIMEOUT_SECONDS: "3",
    },
  });
  events = await EventReader.start(runner.kafka!, TOPICS.scanEvents);
}, 90_000);

afterAll(async () => {
  await events?.stop();
  await closeTogether([runner, projects, identity]);
  for (const res of kb?.waiting ?? []) res.destroy();
  kb?.server.closeAllConnections();
  await new Promise((resolve) => kb?.server.close(resolve));
  await artefacts?.remove();
  await fake?.remove();
}, 60_000);

async function sourceScan(files: Record<string, string>) {
  const projectId = await makeProject(identity, projects);
  const job = scanJob({ lane: "manual", kind: "source", projectId });
  job.sourceArchive = await upload(
    artefacts.store,
    projectId,
    zipOf(Object.entries(files).map(([name, data]) => ({ name, data }))),
  );
  await publishJobs(runner.kafka!, "manual", [job]);
  const [finished] = await events.waitFor(ScanAttemptFinishedSchema, (e) => e.scanId === job.scanId, 1, 150_000);
  const lines = await events.waitFor(ScanLogLineSchema, (l) => l.scanId === job.scanId && l.stage === "fingerprint", 0);
  const progress = await events.waitFor(ScanProgressSchema, (p) => p.scanId === job.scanId && !p.heartbeat, 0);
  return { job, projectId, finished: finished!, lines, progress };
}

describe("the fingerprint stage", () => {
  it("sends the files' SWHIDs only, and makes what the knowledge base names a vendored component", async () => {
    const { projectId, finished, lines, progress } = await sourceScan(FILES);
    expect(finished).toMatchObject({ outcome: "succeeded", componentCount: 2 });

    // What the knowledge base received: one request, Software Heritage's /known/ body, with the key as a bearer.
    expect(kb.received).toHaveLength(1);
    const [request] = kb.received;
    expect(request!.headers.authorization).toBe("Bearer kb-test-key");
    expect(request!.headers["content-type"]).toBe("application/json");
    expect((JSON.parse(request!.body) as string[]).sort()).toEqual(
      Object.values(FILES)
        .map((_, i) => swhids[Object.keys(FILES)[i]!])
        .sort(),
    );
    // Never a byte of a file, nor its path.
    expect(request!.body).not.toContain(SECRET);
    expect(request!.body).not.toContain(Buffer.from(SECRET).toString("base64"));
    expect(request!.body).not.toContain("lodash");
    expect(request!.body).not.toContain("secret.js");

    const inventory = projects.client(InventoryService);
    const reader = await callAs.superAdmin("00000000-0000-4000-8000-00000000c0de");
    const page = await inventory.listComponents({ projectId, limit: 50 }, reader);
    const lodash = page.items.find((c) => c.name === "lodash")!;
    expect(lodash).toMatchObject({ version: "4.17.21", purl: "pkg:npm/lodash@4.17.21", license: "MIT" });
    const { component } = await inventory.getComponent({ projectId, componentId: lodash.componentId }, reader);
    const raw = JSON.parse(Buffer.from(component!.rawData).toString("utf8")) as Record<string, unknown>;
    expect(raw.properties).toEqual([{ name: COMPONENT_SOURCE_PROPERTY, value: "fingerprint" }]);
    expect(raw.evidence).toEqual({ occurrences: [{ location: "vendor/lodash/lodash.min.js" }] });
    expect(page.items.find((c) => c.name === "left-pad")).toMatchObject({ license: "WTFPL" });

    // The spec's stage vocabulary: progress step and log stage "fingerprint", between cdxgen and reading.
    const steps = progress.map((p) => p.step);
    expect(steps.indexOf("fingerprint")).toBeGreaterThan(steps.indexOf("cdxgen"));
    expect(lines.map((l) => l.line)).toEqual([
      expect.stringMatching(
        /^Fingerprinted 4 files; their SWHIDs \(content hashes only\) were sent to 127\.0\.0\.1:\d+: 2 files known, 1 packages recognised, 1 known files without a package\.$/,
      ),
      "Vendored pkg:npm/lodash@4.17.21: 1 files, e.g. vendor/lodash/lodash.min.js.",
      "Known to the knowledge base: vendor/readme-from-somewhere.txt",
    ]);
  }, 240_000);

  it("skips the stage at FINGERPRINT_TIMEOUT_SECONDS with a log line, and the scan goes on", async () => {
    const started = Date.now();
    const { finished, lines } = await sourceScan({ ...FILES, ...HANG_FILE });
    expect(finished).toMatchObject({ outcome: "succeeded", componentCount: 1 });
    expect(Date.now() - started).toBeLessThan(100_000);
    expect(lines.map((l) => [l.stream, l.line])).toEqual([
      [
        "stderr",
        "The fingerprint stage was skipped: it did not finish within FINGERPRINT_TIMEOUT_SECONDS (3 s); the scan goes on without it.",
      ],
    ]);
  }, 240_000);
});
