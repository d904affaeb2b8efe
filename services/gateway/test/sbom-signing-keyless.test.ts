// Keyless SBOM signing through a real gateway, projects and identity: scans made succeeded are signed with a key
// pair made for each signature, certified by a real Fulcio (v1.8.8, built from the Go module proxy) for the workload
// identity the test OpenID provider issued; the routes serve the certificates and no public key; and cosign verifies
// the zip's files exactly as its VERIFY.md says. A tampered SBOM byte, another identity, another signature's
// certificate and a swapped attestation must fail. Not exercised, because none runs here: a transparency log (Rekor)
// and a CT log; the certificates carry no SCT and nothing is logged (docs/signing.md, "Keyless"). @sigstore/verify is
// not used: without a log entry or a signed timestamp it checks no certificate chain at all.
// Special configuration: SIGNING_KEYLESS with SIGNING_CA_URL (the Fulcio), SIGNING_OIDC_ISSUER (the test provider,
// whose client id "sigstore" is the tokens' audience, as a projected service-account token's) and
// SIGNING_OIDC_TOKEN_PATH (a file the test writes the provider's ID token to).
import { randomUUID, X509Certificate } from "node:crypto";
import { cp, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { DirectoryArtefactStore } from "@sca/artefacts";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import {
  eventually,
  fixturesOf,
  identityToken,
  ingestArtefact,
  publishScanState,
  runCosign,
  sharedDir,
  startFulcio,
  startTestProvider,
  type TestFulcio,
  type TestProducer,
  type TestProvider,
} from "@sca/testkit";
import { startProjectsStack, type ProjectsStack } from "./projects-stack.ts";
import { extractBundle, refused, verifyCommands, type ExtractedBundle } from "./support/signature-bundle.ts";

const SBOMS = join(sharedDir(), "data", "sbom", "cyclonedx");
const IDENTITY = "sbom-signer@portal.example.test";
const CALLBACK = "http://127.0.0.1:9/workload-identity";

let s: ProjectsStack;
let provider: TestProvider;
let fulcio: TestFulcio;
let dir: string;
let tokenPath: string;
let developer: string;
let teamId: string;
let producer: TestProducer;
const projects: Record<"small" | "other" | "unsigned", { id: string; slug: string; scanId: string }> = {} as never;

async function get(path: string) {
  const res = await fetch(`${s.gateway.origin}${path}`, { headers: { authorization: `Bearer ${developer}` } });
  const bytes = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    disposition: res.headers.get("content-disposition"),
    bytes,
    json: () => JSON.parse(bytes.toString("utf8")) as Record<string, unknown>,
  };
}
const signing = (p: keyof typeof projects, file: string) => get(`/v1/projects/${projects[p].id}/sbom/${file}`);

/** A project with one scan, reported succeeded as the scan-orchestrator's relay does, then signed or not. */
async function scannedProject(name: keyof typeof projects): Promise<void> {
  const admin = await s.superAdminToken();
  const slug = `${name}-${randomUUID().slice(0, 6)}`;
  const id = (await s.request("POST", "/v1/projects", { bearer: admin, body: { name, slug, team_id: teamId } })).json
    .id as string;
  const artefact = (await fixturesOf("scanner-runner")).inventoryArtefactOf(
    await readFile(join(SBOMS, "ascii-boxes.cdx-1.4.json")),
  );
  const scanId = await ingestArtefact(
    s.projects.client(InventoryService),
    new DirectoryArtefactStore(dir),
    id,
    artefact,
  );
  await publishScanState(s.projects, producer, { scanId, projectId: id, teamId });
  projects[name] = { id, slug, scanId };
  await eventually(
    () => signing(name, "signature"),
    (r) => r.status === 200 || (r.status === 404 && r.json().unsigned_reason !== "pending"),
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sca-sbom-keyless-"));
  provider = await startTestProvider({ redirectUris: [CALLBACK], clientId: "sigstore", claimsInIdToken: true });
  provider.people.set("portal-workload", { email: IDENTITY, email_verified: true, name: "SCA portal", groups: [] });
  fulcio = await startFulcio({ issuer: provider.issuer, clientId: provider.clientId, caPem: provider.caPem });
  tokenPath = join(dir, "identity-token");
  await writeFile(tokenPath, await identityToken(provider, "portal-workload", CALLBACK));
  s = await startProjectsStack({
    ARTEFACT_DIR: dir,
    DOMAIN: "portal.example.test",
    SIGNING_KEYLESS: "true",
    SIGNING_CA_URL: fulcio.url,
    SIGNING_OIDC_ISSUER: provider.issuer,
    SIGNING_OIDC_TOKEN_PATH: tokenPath,
  });
  producer = s.projects.kafka!.producer();
  await producer.connect();
  const team = await s.team();
  teamId = team.id;
  developer = (await s.person([[team.id, "developer"]])).token;
  await Promise.all([scannedProject("small"), scannedProject("other")]);
  // No identity token when the scan succeeds: the scan stays succeeded and unsigned, with the reason.
  await rename(tokenPath, `${tokenPath}.away`);
  await scannedProject("unsigned");
  await rename(`${tokenPath}.away`, tokenPath);
}, 90_000);

afterAll(async () => {
  await producer?.disconnect();
  await s?.close();
  await fulcio?.stop();
  await provider?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The zip extracted, with the CA's root saved as VERIFY.md asks the auditor to (from the CA, not the zip). */
async function extractedBundle(p: keyof typeof projects): Promise<ExtractedBundle> {
  const zip = await signing(p, "signature-bundle");
  expect(zip.status).toBe(200);
  const bundle = await extractBundle(zip.bytes, dir, p);
  await writeFile(join(bundle.at, "ca-root.pem"), fulcio.rootPem);
  return bundle;
}

describe("keyless signing with a Fulcio certificate", () => {
  it("serves the certificates, naming the workload's identity and issuer, and no public key", async () => {
    const { slug } = projects.small;
    const cert = await signing("small", "certificate");
    expect(cert).toMatchObject({ status: 200, disposition: `attachment; filename="sbom-${slug}.cdx.json.cert.pem"` });
    const attestCert = await signing("small", "attestation-certificate");
    expect(attestCert).toMatchObject({
      status: 200,
      disposition: `attachment; filename="sbom-${slug}.attest.cert.pem"`,
    });
    for (const pem of [cert.bytes, attestCert.bytes]) {
      const x509 = new X509Certificate(pem);
      expect(x509.subjectAltName).toBe(`email:${IDENTITY}`);
      expect(x509.verify(new X509Certificate(fulcio.rootPem).publicKey)).toBe(true);
    }
    // A key pair per signature: the two certificates certify different keys.
    expect(new X509Certificate(cert.bytes).publicKey.equals(new X509Certificate(attestCert.bytes).publicKey)).toBe(
      false,
    );
    const pub = await signing("small", "public-key");
    expect(pub.status).toBe(404);
    expect(pub.json().detail).toMatch(/signs keyless/);
  });

  it("zips exactly the spec's keyless files and a VERIFY.md pinning the identity and issuer", async () => {
    const { slug } = projects.small;
    const { files, verifyMd } = await extractedBundle("small");
    expect(Object.keys(files).sort()).toEqual(
      [
        `sbom-${slug}.cdx.json`,
        `sbom-${slug}.cdx.json.sig`,
        `sbom-${slug}.cdx.json.cert.pem`,
        `sbom-${slug}.cdx.json.sigstore.json`,
        `sbom-${slug}.intoto.jsonl`,
        `sbom-${slug}.attest.cert.pem`,
        `sbom-${slug}.intoto.sigstore.json`,
        "VERIFY.md",
      ].sort(),
    );
    for (const name of [...Object.keys(files).filter((n) => n !== "VERIFY.md"), "ca-root.pem"])
      expect(verifyMd).toContain(`\`${name}\``);
    const commands = verifyCommands(verifyMd);
    expect(commands.map((c) => c[0])).toEqual(["verify-blob", "verify-blob-attestation"]);
    for (const args of commands) {
      expect(args).toEqual(
        expect.arrayContaining([
          "--certificate-identity",
          IDENTITY,
          "--certificate-oidc-issuer",
          provider.issuer,
          "--insecure-ignore-sct=true",
        ]),
      );
      expect(args).not.toContain("--key");
    }
  });

  it("is a 404 naming why when the identity token cannot be read", async () => {
    for (const route of ["signature-bundle", "signature", "certificate", "attestation"]) {
      const r = await signing("unsigned", route);
      expect(r.status).toBe(404);
      expect(r.json()).toMatchObject({ unsigned_reason: "identity_token_unreadable" });
    }
  });
});

describe("verified by cosign exactly as VERIFY.md says", () => {
  it("verifies the signature and the attestation", async () => {
    const { at, verifyMd } = await extractedBundle("small");
    for (const args of verifyCommands(verifyMd)) {
      const run = await runCosign(args, at);
      expect(run).toMatchObject({ code: 0, output: expect.stringContaining("Verified OK") as unknown });
    }
  });

  it("fails both on a tampered SBOM byte", async () => {
    const { at, files, verifyMd } = await extractedBundle("small");
    const sbomName = `sbom-${projects.small.slug}.cdx.json`;
    const tampered = Buffer.from(files[sbomName]!);
    const digit = tampered.indexOf('"timestamp":"2') + '"timestamp":"'.length;
    expect(tampered[digit]).toBe("2".charCodeAt(0));
    tampered[digit] = "3".charCodeAt(0);
    await writeFile(join(at, sbomName), tampered);
    for (const args of verifyCommands(verifyMd)) refused(await runCosign(args, at));
  });

  it("fails both when another identity is pinned", async () => {
    const { at, verifyMd } = await extractedBundle("small");
    for (const args of verifyCommands(verifyMd)) {
      const other = args.map((a) => (a === IDENTITY ? "someone-else@portal.example.test" : a));
      expect(other).not.toEqual(args);
      refused(await runCosign(other, at));
    }
  });

  it("fails with another signature's certificate, from the same CA and identity", async () => {
    const mine = await extractedBundle("small");
    const theirs = await extractedBundle("other");
    await cp(
      join(theirs.at, `sbom-${projects.other.slug}.cdx.json.cert.pem`),
      join(mine.at, `sbom-${projects.small.slug}.cdx.json.cert.pem`),
    );
    const [blob] = verifyCommands(mine.verifyMd);
    refused(await runCosign(blob!, mine.at));
  });

  it("fails the attestation of another SBOM (a swapped subject), though its signature is good", async () => {
    const mine = await extractedBundle("small");
    const theirs = await extractedBundle("other");
    for (const file of ["intoto.jsonl", "attest.cert.pem"])
      await cp(
        join(theirs.at, `sbom-${projects.other.slug}.${file}`),
        join(mine.at, `sbom-${projects.small.slug}.${file}`),
      );
    const [, attest] = verifyCommands(mine.verifyMd);
    refused(await runCosign(attest!, mine.at));
    const [, theirAttest] = verifyCommands(theirs.verifyMd);
    expect((await runCosign(theirAttest!, theirs.at)).code).toBe(0);
  });
});
