// The signature bundle's files (endpoints.md, "SBOM signing artifacts"): their names, and the VERIFY.md that names
// them with the exact commands an auditor runs (docs/signing.md). Key-based only: keyless is not built yet.
import { sbomFileName } from "../sbom-export/index.ts";

export type SigningModel = "key-based" | "keyless";

export interface SigningFileNames {
  sbom: string;
  signature: string;
  publicKey: string;
  certificate: string;
  attestation: string;
  attestationCertificate: string;
  /** The Sigstore bundles (protobuf-specs v0.3 JSON) beside the cosign files; @sigstore/verify reads them. */
  sigstoreBundle: string;
  attestationSigstoreBundle: string;
  zip: string;
}

export function signingFileNames(slug: string): SigningFileNames {
  const sbom = sbomFileName(slug, "cyclonedx-json");
  return {
    sbom,
    signature: `${sbom}.sig`,
    publicKey: "signing.pub",
    certificate: `${sbom}.cert.pem`,
    attestation: `sbom-${slug}.intoto.jsonl`,
    attestationCertificate: `sbom-${slug}.attest.cert.pem`,
    sigstoreBundle: `${sbom}.sigstore.json`,
    attestationSigstoreBundle: `sbom-${slug}.intoto.sigstore.json`,
    zip: `sbom-signature-${slug}.zip`,
  };
}

/** Why a scan has no signature: the problem's `unsigned_reason` and its sentence. */
export const UNSIGNED_REASONS = {
  not_configured: "No signing key is configured on this deployment (SIGNING_KEY_PATH is unset).",
  keyless_unavailable: "Keyless signing is configured (SIGNING_KEYLESS) but this version signs with a key only.",
  key_unreadable: "The signing key file could not be read.",
  password_undecryptable: "The signing key's password could not be decrypted with the deployment's secret key.",
  key_unusable: "The signing key is not an ECDSA P-256 private key, or its password does not open it.",
  signing_failed: "Signing the SBOM failed.",
} as const;
export type UnsignedReason = keyof typeof UNSIGNED_REASONS;

export function isUnsignedReason(value: string): value is UnsignedReason {
  return Object.hasOwn(UNSIGNED_REASONS, value);
}

/** The cosign commands VERIFY.md gives, in the order it gives them; the signing tests run exactly these. */
export function keyBasedVerifyCommands(names: SigningFileNames, withAttestation: boolean): string[][] {
  const tlog = "--insecure-ignore-tlog=true";
  const commands = [
    ["cosign", "verify-blob", "--key", names.publicKey, "--signature", names.signature, tlog, names.sbom],
  ];
  if (withAttestation)
    commands.push([
      "cosign",
      "verify-blob-attestation",
      "--key",
      names.publicKey,
      "--signature",
      names.attestation,
      "--type",
      "slsaprovenance1",
      tlog,
      names.sbom,
    ]);
  return commands;
}

export interface VerifyFacts {
  names: SigningFileNames;
  scanId: string;
  sbomSha256: string;
  withAttestation: boolean;
  /** SHA-256 of the public key's DER (SubjectPublicKeyInfo): what an auditor compares with the key they trust. */
  publicKeySha256: string;
}

export function verifyInstructions(f: VerifyFacts): string {
  const { names } = f;
  const files = [
    `- \`${names.sbom}\`: the signed SBOM (CycloneDX 1.6 JSON of scan ${f.scanId}), SHA-256 \`${f.sbomSha256}\``,
    `- \`${names.signature}\`: its detached ECDSA P-256 signature (base64, SHA-256 digest)`,
    `- \`${names.publicKey}\`: the public key that checks it (SHA-256 of its DER: \`${f.publicKeySha256}\`)`,
    `- \`${names.sigstoreBundle}\`: the same signature as a Sigstore bundle (v0.3)`,
    ...(f.withAttestation
      ? [
          `- \`${names.attestation}\`: the SLSA v1 provenance of the SBOM, an in-toto statement in a DSSE envelope`,
          `- \`${names.attestationSigstoreBundle}\`: the same attestation as a Sigstore bundle (v0.3)`,
        ]
      : []),
    "- `VERIFY.md`: this file",
  ];
  const commands = keyBasedVerifyCommands(names, f.withAttestation).map((c) => c.join(" "));
  return [
    "# Verifying this SBOM",
    "",
    "Signed with a key (no certificate, no transparency log): the signature proves the SBOM came from the holder of",
    "the private key that matches `signing.pub`. Check that `signing.pub` is the key your supplier published (its",
    "SHA-256 below) before trusting it; a key taken from this zip alone proves only that the files match each other.",
    "",
    "## Files",
    "",
    ...files,
    "",
    "## Commands",
    "",
    "With cosign 2.x (https://github.com/sigstore/cosign), in the directory this zip was extracted to:",
    "",
    "```sh",
    ...commands,
    "```",
    "",
    "`--insecure-ignore-tlog=true` is needed because key-based signatures are not logged to a transparency log;",
    "cosign warns about it. Each command prints `Verified OK` and exits 0 when the file is intact and was signed",
    "with the key; any changed byte makes it fail.",
    ...(f.withAttestation
      ? [
          "",
          `The attestation's subject is \`${names.sbom}\` with the SHA-256 above; its predicate names the portal's`,
          "base URL, the builder id, the builder's version and the scan it was exported from.",
        ]
      : []),
    "",
  ].join("\n");
}
