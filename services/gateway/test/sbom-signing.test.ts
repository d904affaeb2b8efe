// The SBOM signing routes through a real gateway, projects and identity, with a key-based deployment: scans made
// succeeded by the scan-orchestrator's event are signed with an encrypted ECDSA P-256 key whose password is given only
// sealed; the six routes answer with the spec's file names and status codes; and every artifact is verified by
// verifiers we did not write: cosign (built from the Go module proxy, run exactly as the bundle's VERIFY.md says)
// and @sigstore/verify in-process. A tampered SBOM byte, a wrong key and a swapped attestation subject must fail.
// Special configuration: the gateway's SIGNING_DOWNLOAD_MAX_BYTES is 64 KiB, above every single file and a small
// SBOM's zip but below the juice-shop's, so one stack shows both the zip and its 413.
import { createHash, createPublicKey, generateKeyPairSync, randomUUID } from "node:crypto";
import { cp, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { bundleFromJSON } from "@sigstore/bundle";
import { toSignedEntity, toTrustMaterial, Verifier } from "@sigstore/verify";
import { unzipSync } from "fflate";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { rawStatement } from "@sca/db";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { seal, secretBoxKey } from "@sca/secret-box";
import {
  eventually,
  fixturesOf,
  ingestArtefact,
  publishScanState,
  runCosign,
  sharedDir,
  TEST_SECRET,
  type TestProducer,
} from "@sca/testkit";
import { startProjectsStack, type ProjectsStack } from "./projects-stack.ts";
import { extractBundle, refused, verifyCommands, type ExtractedBundle } from "./support/signature-bundle.ts";

const SBOMS = join(sharedDir(), "data", "sbom", "cyclonedx");
const PASSWORD = `pw-${randomUUID()}`;
const AUTHOR = "Example Supply Chain Team";
const VERSION = "9.8.7-test";
const DOMAIN = "portal.example.test";

let s: ProjectsStack;
let dir: string;
let keyPath: string;
let wrongKeyPem: string;
let developer: string;
let viewer: string;
let outsider: string;
let teamId: string;
let producer: TestProducer;
const projects: Record<
  "small" | "other" | "big" | "unsigned",
  { id: string; slug: string; scanId: string; keptCopy: Buffer | null }
> = {} as never;
/** Where projects keeps a scan's export for the signer, from its ingestion until the scan's end (docs/signing.md). */
const keptCopyPath = (scanId: string) => join(dir, "scans", scanId, "sbom-signing.cdx.json");

async function get(path: string, bearer = developer) {
  const res = await fetch(`${s.gateway.origin}${path}`, { headers: { authorization: `Bearer ${bearer}` } });
  const bytes = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    disposition: res.headers.get("content-disposition"),
    bytes,
    json: () => JSON.parse(bytes.toString("utf8")) as Record<string, unknown>,
  };
}
const signing = (p: keyof typeof projects, file: string, bearer = developer) =>
  get(`/v1/projects/${projects[p].id}/sbom/${file}`, bearer);

/** A project with one scan of `sbomFile`, reported succeeded as the scan-orchestrator's relay does. */
async function scannedProject(name: keyof typeof projects, sbomFile: string): Promise<void> {
  const admin = await s.superAdminToken();
  const slug = `${name}-${randomUUID().slice(0, 6)}`;
  const id = (await s.request("POST", "/v1/projects", { bearer: admin, body: { name, slug, team_id: teamId } })).json
    .id as string;
  const artefact = (await fixturesOf("scanner-runner")).inventoryArtefactOf(await readFile(join(SBOMS, sbomFile)));
  const scanId = await ingestArtefact(
    s.projects.client(InventoryService),
    new DirectoryArtefactStore(dir),
    id,
    artefact,
  );
  const keptCopy = await readFile(keptCopyPath(scanId)).catch(() => null);
  await publishScanState(s.projects, producer, { scanId, projectId: id, teamId });
  projects[name] = { id, slug, scanId, keptCopy };
  // Signed, or recorded unsigned: anything but "not signed yet".
  await eventually(
    () => signing(name, "signature"),
    (r) => r.status === 200 || (r.status === 404 && r.json().unsigned_reason !== "pending"),
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-sbom-signing-"));
  const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
  keyPath = join(dir, "signing.key");
  await writeFile(
    keyPath,
    pair.privateKey.export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: PASSWORD }),
  );
  wrongKeyPem = generateKeyPairSync("ec", { namedCurve: "P-256" })
    .publicKey.export({ type: "spki", format: "pem" })
    .toString();
  // The password as an operator seals it (docs/signing.md): the secret box of projects' SECRET_KEY.
  const sealed = seal(PASSWORD, secretBoxKey(TEST_SECRET, "signing-key-password", "sca-projects"));
  s = await startProjectsStack(
    {
      ARTEFACT_DIR: dir,
      DOMAIN,
      SIGNING_KEY_PATH: keyPath,
      SIGNING_KEY_PASSWORD_ENCRYPTED: sealed,
      SBOM_AUTHOR: AUTHOR,
      SERVICE_VERSION: VERSION,
    },
    { SIGNING_DOWNLOAD_MAX_BYTES: String(64 * 1024) },
  );
  producer = s.projects.kafka!.producer();
  await producer.connect();
  const team = await s.team();
  teamId = team.id;
  developer = (await s.person([[team.id, "developer"]])).token;
  viewer = (await s.person([[team.id, "viewer"]])).token;
  outsider = (await s.person([[(await s.team()).id, "team_admin"]])).token;
  await Promise.all([
    scannedProject("small", "ascii-boxes.cdx-1.4.json"),
    scannedProject("other", "ascii-boxes.cdx-1.4.json"),
    scannedProject("big", "juice-shop-cyclonedx-npm.cdx-1.7.json"),
  ]);
  // A key that cannot be read when the scan succeeds: the scan stays succeeded and unsigned, with the reason.
  await rename(keyPath, `${keyPath}.away`);
  await scannedProject("unsigned", "ascii-boxes.cdx-1.4.json");
  await rename(`${keyPath}.away`, keyPath);
}, 90_000);

afterAll(async () => {
  await producer?.disconnect();
  await s?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** The zip's files, extracted into a fresh directory. */
async function extractedBundle(p: keyof typeof projects): Promise<ExtractedBundle> {
  const zip = await signing(p, "signature-bundle");
  expect(zip.status).toBe(200);
  return extractBundle(zip.bytes, dir, p);
}

describe("signing a succeeded scan's SBOM", () => {
  it("fills the export's metadata with SBOM_AUTHOR and SERVICE_VERSION", async () => {
    const bom = (await get(`/v1/projects/${projects.small.id}/sbom`)).json() as {
      metadata: { authors: { name: string }[]; tools: { components: { name: string; version: string }[] } };
    };
    expect(bom.metadata.authors).toEqual([{ name: AUTHOR }]);
    expect(bom.metadata.tools.components).toEqual([{ type: "application", name: "sca-portal", version: VERSION }]);
    const spdx = (await get(`/v1/projects/${projects.small.id}/sbom?format=spdx-json`)).json() as {
      creationInfo: { creators: string[] };
    };
    expect(spdx.creationInfo.creators).toEqual([`Person: ${AUTHOR}`, `Tool: sca-portal-${VERSION}`]);
  });

  it("serves the signature, the public key and the attestation with the spec's file names", async () => {
    const { slug } = projects.small;
    const sig = await signing("small", "signature");
    expect(sig).toMatchObject({ status: 200, disposition: `attachment; filename="sbom-${slug}.cdx.json.sig"` });
    expect(sig.bytes.toString("utf8")).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const pub = await signing("small", "public-key");
    expect(pub).toMatchObject({ status: 200, disposition: 'attachment; filename="signing.pub"' });
    expect(pub.bytes.toString("utf8")).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const att = await signing("small", "attestation");
    expect(att).toMatchObject({ status: 200, disposition: `attachment; filename="sbom-${slug}.intoto.jsonl"` });
    const lines = att.bytes.toString("utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    const envelope = JSON.parse(lines[0]!) as { payloadType: string; payload: string; signatures: unknown[] };
    expect(envelope.payloadType).toBe("application/vnd.in-toto+json");
    expect(envelope.signatures).toHaveLength(1);
    const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8")) as Record<string, never>;
    const sbom = await get(`/v1/projects/${projects.small.id}/sbom`);
    expect(statement).toMatchObject({
      _type: "https://in-toto.io/Statement/v1",
      subject: [{ name: `sbom-${slug}.cdx.json`, digest: { sha256: sha256(sbom.bytes) } }],
      predicateType: "https://slsa.dev/provenance/v1",
      predicate: {
        buildDefinition: {
          externalParameters: { project_id: projects.small.id, scan_id: projects.small.scanId },
          internalParameters: { base_url: `https://${DOMAIN}` },
        },
        runDetails: {
          builder: { id: `https://${DOMAIN}/sbom-signing/builder/v1`, version: { "sca-portal": VERSION } },
        },
      },
    });
  });

  it("signs the export kept at ingestion, the bytes the export serves, then deletes the copy", async () => {
    for (const p of ["small", "big", "unsigned"] as const) {
      const { id, scanId, keptCopy } = projects[p];
      expect(keptCopy).not.toBeNull();
      const served = await get(`/v1/projects/${id}/sbom?scan_id=${scanId}`);
      expect(sha256(keptCopy!)).toBe(sha256(served.bytes));
      await expect(readFile(keptCopyPath(scanId))).rejects.toMatchObject({ code: "ENOENT" });
    }
    const att = await signing("big", "attestation");
    const envelope = JSON.parse(att.bytes.toString("utf8")) as { payload: string };
    const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8")) as {
      subject: { digest: { sha256: string } }[];
    };
    expect(statement.subject[0]!.digest.sha256).toBe(sha256(projects.big.keptCopy!));
  });

  it("answers 404 for the certificates of a key-based deployment", async () => {
    for (const file of ["certificate", "attestation-certificate"]) {
      const r = await signing("small", file);
      expect(r.status).toBe(404);
      expect(r.json().detail).toMatch(/signs with a key/);
    }
  });

  it("zips exactly the spec's files, the signed bytes the export serves, and VERIFY.md naming them", async () => {
    const { slug } = projects.small;
    const zip = await signing("small", "signature-bundle");
    expect(zip).toMatchObject({
      status: 200,
      type: "application/zip",
      disposition: `attachment; filename="sbom-signature-${slug}.zip"`,
    });
    const files = unzipSync(zip.bytes);
    expect(Object.keys(files).sort()).toEqual(
      [
        `sbom-${slug}.cdx.json`,
        `sbom-${slug}.cdx.json.sig`,
        `sbom-${slug}.cdx.json.sigstore.json`,
        "signing.pub",
        `sbom-${slug}.intoto.jsonl`,
        `sbom-${slug}.intoto.sigstore.json`,
        "VERIFY.md",
      ].sort(),
    );
    const exported = await get(`/v1/projects/${projects.small.id}/sbom`);
    expect(Buffer.from(files[`sbom-${slug}.cdx.json`]!).equals(exported.bytes)).toBe(true);
    const verifyMd = Buffer.from(files["VERIFY.md"]!).toString("utf8");
    for (const name of Object.keys(files).filter((n) => n !== "VERIFY.md")) expect(verifyMd).toContain(`\`${name}\``);
    expect(verifyCommands(verifyMd)).toHaveLength(2);
    // Only public material, anywhere in the zip.
    for (const content of Object.values(files)) {
      expect(Buffer.from(content).toString("utf8")).not.toMatch(/PRIVATE KEY/);
      expect(Buffer.from(content).toString("utf8")).not.toContain(PASSWORD);
    }
  });
});

describe("verified by cosign exactly as VERIFY.md says", () => {
  it("verifies the signature and the attestation", async () => {
    const { at, files } = await extractedBundle("small");
    const commands = verifyCommands(Buffer.from(files["VERIFY.md"]!).toString("utf8"));
    expect(commands.map((c) => c[0])).toEqual(["verify-blob", "verify-blob-attestation"]);
    for (const args of commands) {
      const run = await runCosign(args, at);
      expect(run).toMatchObject({ code: 0, output: expect.stringContaining("Verified OK") as unknown });
    }
  });

  it("fails both on a tampered SBOM byte", async () => {
    const { at, files } = await extractedBundle("small");
    const sbomName = `sbom-${projects.small.slug}.cdx.json`;
    const tampered = Buffer.from(files[sbomName]!);
    // One digit of the timestamp: still valid JSON, another document.
    const digit = tampered.indexOf('"timestamp":"2') + '"timestamp":"'.length;
    expect(tampered[digit]).toBe("2".charCodeAt(0));
    tampered[digit] = "3".charCodeAt(0);
    await writeFile(join(at, sbomName), tampered);
    for (const args of verifyCommands(Buffer.from(files["VERIFY.md"]!).toString("utf8")))
      refused(await runCosign(args, at));
  });

  it("fails both with a key that did not sign", async () => {
    const { at, files } = await extractedBundle("small");
    await writeFile(join(at, "signing.pub"), wrongKeyPem);
    for (const args of verifyCommands(Buffer.from(files["VERIFY.md"]!).toString("utf8")))
      refused(await runCosign(args, at));
  });

  it("fails the attestation of another SBOM (a swapped subject), though its signature is good", async () => {
    const mine = await extractedBundle("small");
    const theirs = await extractedBundle("other");
    const attestation = `sbom-${projects.small.slug}.intoto.jsonl`;
    await cp(join(theirs.at, `sbom-${projects.other.slug}.intoto.jsonl`), join(mine.at, attestation));
    const [, attest] = verifyCommands(Buffer.from(mine.files["VERIFY.md"]!).toString("utf8"));
    refused(await runCosign(attest!, mine.at));
    // The same envelope verifies against the SBOM it names.
    const [, theirAttest] = verifyCommands(Buffer.from(theirs.files["VERIFY.md"]!).toString("utf8"));
    expect((await runCosign(theirAttest!, theirs.at)).code).toBe(0);
  });
});

describe("verified in-process by @sigstore/verify", () => {
  /** Trust in the one public key: no CA, no log, no timestamp authority (key-based). */
  const verifierFor = (publicKeyPem: string) =>
    new Verifier(
      toTrustMaterial(
        {
          mediaType: "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
          tlogs: [],
          ctlogs: [],
          certificateAuthorities: [],
          timestampAuthorities: [],
        },
        () => ({ publicKey: createPublicKey(publicKeyPem), validFor: () => true }),
      ),
      { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 },
    );

  it("verifies both Sigstore bundles and refuses a tampered SBOM and a wrong key", async () => {
    const { files } = await extractedBundle("small");
    const { slug } = projects.small;
    const text = (name: string) => Buffer.from(files[name]!).toString("utf8");
    const sbom = Buffer.from(files[`sbom-${slug}.cdx.json`]!);
    const message = bundleFromJSON(JSON.parse(text(`sbom-${slug}.cdx.json.sigstore.json`)));
    const dsse = bundleFromJSON(JSON.parse(text(`sbom-${slug}.intoto.sigstore.json`)));
    const verifier = verifierFor(text("signing.pub"));
    expect(() => verifier.verify(toSignedEntity(message, sbom))).not.toThrow();
    expect(() => verifier.verify(toSignedEntity(dsse))).not.toThrow();
    const tampered = Buffer.from(sbom);
    tampered[10] = tampered[10]! ^ 1;
    expect(() => verifier.verify(toSignedEntity(message, tampered))).toThrow();
    expect(() => verifierFor(wrongKeyPem).verify(toSignedEntity(message, sbom))).toThrow();
    expect(() => verifierFor(wrongKeyPem).verify(toSignedEntity(dsse))).toThrow();
  });
});

describe("who sees what, unsigned scans and the download cap", () => {
  const ROUTES = [
    "signature-bundle",
    "signature",
    "public-key",
    "certificate",
    "attestation",
    "attestation-certificate",
  ];

  it("is a 404 for outsiders and a 403 for a viewer on the team, on every route", async () => {
    for (const route of ROUTES) {
      expect((await signing("small", route, outsider)).status).toBe(404);
      expect((await signing("small", route, viewer)).status).toBe(403);
    }
  });

  it("is a 404 naming why for an unsigned scan, which is still the latest succeeded scan", async () => {
    for (const route of ["signature-bundle", "signature", "public-key", "attestation"]) {
      const r = await signing("unsigned", route);
      expect(r.status).toBe(404);
      expect(r.json()).toMatchObject({
        unsigned_reason: "key_unreadable",
        scan_id: projects.unsigned.scanId,
        detail: expect.stringContaining("could not be read") as unknown,
      });
    }
    expect((await get(`/v1/projects/${projects.unsigned.id}/sbom`)).status).toBe(200);
  });

  it("answers 413 for a zip over SIGNING_DOWNLOAD_MAX_BYTES, the small files still served", async () => {
    const r = await signing("big", "signature-bundle");
    expect(r.status).toBe(413);
    expect(r.json()).toMatchObject({ max_bytes: 64 * 1024 });
    expect((await signing("big", "signature")).status).toBe(200);
  });
});

describe("the public-key route's refusal", () => {
  it("refuses a stored key that is not plainly a public key, without sending it", async () => {
    // As if the row had been written wrongly: the route checks what it serves, whatever the store holds.
    const privatePem = generateKeyPairSync("ec", { namedCurve: "P-256" })
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    await rawStatement(s.projects.orm.em.fork(), "update sbom_signatures set public_key = ? where scan_id = ?", [
      privatePem,
      projects.other.scanId,
    ]);
    for (const route of ["public-key", "signature-bundle", "signature"]) {
      const r = await signing("other", route);
      expect(r.status).toBe(500);
      expect(r.bytes.toString("utf8")).not.toContain("PRIVATE KEY");
    }
  });
});

describe("an export that is no longer what was signed", () => {
  it("is a 409 for the zip rather than bytes that do not match their signature", async () => {
    // As after an upgrade (a new SERVICE_VERSION in the export's metadata): the signed digest is not the export's.
    await rawStatement(s.projects.orm.em.fork(), "update sbom_signatures set sbom_sha256 = ? where scan_id = ?", [
      "0".repeat(64),
      projects.small.scanId,
    ]);
    const r = await signing("small", "signature-bundle");
    expect(r.status).toBe(409);
    expect(r.json().detail).toMatch(/no longer the document that was signed/);
  });
});
