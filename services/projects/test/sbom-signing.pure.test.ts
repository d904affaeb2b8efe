// The signing's pure rules: the bundle's file names, the provenance statement, VERIFY.md and its commands, the
// public-key check (who may download: project-rules.pure.test.ts).
import { describe, expect, it } from "@jest/globals";
import { generateKeyPairSync } from "node:crypto";
import { builderIdOf, provenanceStatement } from "../src/domain/sbom-signing/provenance.ts";
import { isPlainPublicKey } from "../src/domain/sbom-signing/public-key.ts";
import { certificateIdentity, tokenIssuer } from "../src/domain/sbom-signing/keyless-identity.ts";
import { signingFileNames, verifyCommands, verifyInstructions } from "../src/domain/sbom-signing/signing-files.ts";

describe("file names", () => {
  it("are the spec's, from the project's slug", () => {
    expect(signingFileNames("shop")).toEqual({
      sbom: "sbom-shop.cdx.json",
      signature: "sbom-shop.cdx.json.sig",
      publicKey: "signing.pub",
      certificate: "sbom-shop.cdx.json.cert.pem",
      attestation: "sbom-shop.intoto.jsonl",
      attestationCertificate: "sbom-shop.attest.cert.pem",
      sigstoreBundle: "sbom-shop.cdx.json.sigstore.json",
      attestationSigstoreBundle: "sbom-shop.intoto.sigstore.json",
      caRoot: "ca-root.pem",
      zip: "sbom-signature-shop.zip",
    });
  });
});

describe("the provenance statement", () => {
  const facts = {
    sbomFileName: "sbom-shop.cdx.json",
    sbomSha256: "ab".repeat(32),
    baseUrl: "https://portal.example.com",
    builderId: builderIdOf("", "https://portal.example.com"),
    serviceVersion: "1.2.3",
    projectId: "p1",
    scanId: "s1",
    release: "v2",
    sourceFormat: "cyclonedx-json 1.4",
    ingestedAt: new Date("2026-11-28T10:00:00Z"),
    signedAt: new Date("2026-11-28T10:00:01Z"),
  };

  it("names the SBOM as its subject and the base URL, builder and version in its SLSA v1 predicate", () => {
    expect(provenanceStatement(facts)).toEqual({
      _type: "https://in-toto.io/Statement/v1",
      subject: [{ name: "sbom-shop.cdx.json", digest: { sha256: "ab".repeat(32) } }],
      predicateType: "https://slsa.dev/provenance/v1",
      predicate: {
        buildDefinition: {
          buildType: "https://portal.example.com/sbom-signing/cyclonedx-export/v1",
          externalParameters: { project_id: "p1", scan_id: "s1", format: "cyclonedx-json", release: "v2" },
          internalParameters: { base_url: "https://portal.example.com", source_format: "cyclonedx-json 1.4" },
        },
        runDetails: {
          builder: { id: "https://portal.example.com/sbom-signing/builder/v1", version: { "sca-portal": "1.2.3" } },
          metadata: {
            invocationId: "https://portal.example.com/v1/scans/s1",
            startedOn: "2026-11-28T10:00:00.000Z",
            finishedOn: "2026-11-28T10:00:01.000Z",
          },
        },
      },
    });
  });

  it("takes SLSA_BUILDER_ID when set and leaves out a missing release", () => {
    expect(builderIdOf(" https://builders.example/x ", "https://p")).toBe("https://builders.example/x");
    const s = provenanceStatement({ ...facts, release: null }) as {
      predicate: { buildDefinition: { externalParameters: Record<string, string> } };
    };
    expect(s.predicate.buildDefinition.externalParameters).not.toHaveProperty("release");
  });
});

describe("VERIFY.md", () => {
  const names = signingFileNames("shop");
  const keyBased = { model: "key-based", publicKeySha256: "ef" } as const;
  const keyless = { model: "keyless", identity: "ci@example.com", issuer: "https://idp.example.com" } as const;
  const keyBasedVerifyCommands = (n: typeof names, withAttestation: boolean) =>
    verifyCommands(n, keyBased, withAttestation);
  const text = (withAttestation: boolean, signer: typeof keyBased | typeof keyless = keyBased) =>
    verifyInstructions({ names, scanId: "s1", sbomSha256: "cd".repeat(32), withAttestation, signer });

  it("names every file and gives the cosign commands, the attestation's only when there is one", () => {
    const full = text(true);
    for (const n of [names.sbom, names.signature, names.publicKey, names.attestation, names.sigstoreBundle])
      expect(full).toContain(`\`${n}\``);
    for (const c of keyBasedVerifyCommands(names, true)) expect(full).toContain(c.join(" "));
    expect(keyBasedVerifyCommands(names, true)[1]).toEqual([
      "cosign",
      "verify-blob-attestation",
      "--key",
      "signing.pub",
      "--signature",
      "sbom-shop.intoto.jsonl",
      "--type",
      "slsaprovenance1",
      "--insecure-ignore-tlog=true",
      "sbom-shop.cdx.json",
    ]);
    const bare = text(false);
    expect(bare).not.toContain(names.attestation);
    expect(bare).not.toContain("verify-blob-attestation");
    expect(keyBasedVerifyCommands(names, false)).toHaveLength(1);
  });

  it("keyless: names the certificates, pins the identity and issuer, and explains the flags for no log", () => {
    const full = text(true, keyless);
    for (const n of [names.certificate, names.attestationCertificate, names.caRoot]) expect(full).toContain(`\`${n}\``);
    expect(full).not.toContain(names.publicKey);
    for (const c of verifyCommands(names, keyless, true)) expect(full).toContain(c.join(" "));
    expect(verifyCommands(names, keyless, true)[1]).toEqual([
      "cosign",
      "verify-blob-attestation",
      "--certificate",
      "sbom-shop.attest.cert.pem",
      "--certificate-chain",
      "ca-root.pem",
      "--certificate-identity",
      "ci@example.com",
      "--certificate-oidc-issuer",
      "https://idp.example.com",
      "--signature",
      "sbom-shop.intoto.jsonl",
      "--type",
      "slsaprovenance1",
      "--insecure-ignore-tlog=true",
      "--insecure-ignore-sct=true",
      "sbom-shop.cdx.json",
    ]);
    expect(full).toContain("--insecure-ignore-sct=true` tell cosign");
    expect(text(false, keyless)).not.toContain(names.attestationCertificate);
  });
});

describe("the keyless identity", () => {
  const jwt = (claims: object) => ["e30", Buffer.from(JSON.stringify(claims)).toString("base64url"), "sig"].join(".");

  it("reads the token's issuer, and nothing from what is not a JWT", () => {
    expect(tokenIssuer(jwt({ iss: "https://idp.example.com", sub: "x" }))).toBe("https://idp.example.com");
    expect(tokenIssuer(jwt({ sub: "x" }))).toBeNull();
    expect(tokenIssuer("not a token")).toBeNull();
    expect(tokenIssuer("a.%%%.c")).toBeNull();
  });

  it("takes the certificate's first email or URI as its identity", () => {
    expect(certificateIdentity("email:ci@example.com")).toBe("ci@example.com");
    expect(certificateIdentity("DNS:x.example, URI:https://kubernetes.io/namespaces/a/serviceaccounts/b")).toBe(
      "https://kubernetes.io/namespaces/a/serviceaccounts/b",
    );
    expect(certificateIdentity("DNS:x.example")).toBeNull();
    expect(certificateIdentity(undefined)).toBeNull();
  });
});

describe("the public-key check", () => {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });

  it("passes a SubjectPublicKeyInfo PEM and refuses anything private or extra", () => {
    const pub = publicKey.export({ type: "spki", format: "pem" }).toString();
    expect(isPlainPublicKey(pub)).toBe(true);
    expect(isPlainPublicKey(privateKey.export({ type: "pkcs8", format: "pem" }).toString())).toBe(false);
    expect(isPlainPublicKey(privateKey.export({ type: "sec1", format: "pem" }).toString())).toBe(false);
    expect(isPlainPublicKey(pub + privateKey.export({ type: "pkcs8", format: "pem" }).toString())).toBe(false);
    expect(isPlainPublicKey("")).toBe(false);
  });
});
