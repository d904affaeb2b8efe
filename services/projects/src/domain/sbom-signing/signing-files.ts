// The signature bundle's files (endpoints.md, "SBOM signing artifacts"): their names, and the VERIFY.md that names
// them with the exact commands an auditor runs (docs/signing.md), for both models.
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
  /** Keyless: the CA's root certificate, which the auditor gets from the supplier (not in the zip). */
  caRoot: string;
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
    caRoot: "ca-root.pem",
    zip: `sbom-signature-${slug}.zip`,
  };
}

/** Why a scan has no signature: the problem's `unsigned_reason` and its sentence. */
export const UNSIGNED_REASONS = {
  not_configured: "No signing key is configured on this deployment (SIGNING_KEY_PATH is unset).",
  keyless_not_configured:
    "Keyless signing is on (SIGNING_KEYLESS) but SIGNING_CA_URL, SIGNING_OIDC_ISSUER or SIGNING_OIDC_TOKEN_PATH is unset.",
  identity_token_unreadable: "The identity token file (SIGNING_OIDC_TOKEN_PATH) could not be read.",
  identity_token_unusable: "The identity token is not a JWT issued by SIGNING_OIDC_ISSUER.",
  certificate_refused: "The certificate authority (SIGNING_CA_URL) did not issue a signing certificate.",
  key_unreadable: "The signing key file could not be read.",
  password_undecryptable: "The signing key's password could not be decrypted with the deployment's secret key.",
  key_unusable: "The signing key is not an ECDSA P-256 private key, or its password does not open it.",
  signing_failed: "Signing the SBOM failed.",
} as const;
export type UnsignedReason = keyof typeof UNSIGNED_REASONS;

export function isUnsignedReason(value: string): value is UnsignedReason {
  return Object.hasOwn(UNSIGNED_REASONS, value);
}

/** Who signed: the key, or the certificate's identity and its issuer (keyless). */
export type Signer =
  | { model: "key-based"; /** SHA-256 of the public key's DER. */ publicKeySha256: string }
  | { model: "keyless"; identity: string; issuer: string };

/** The cosign commands VERIFY.md gives, in the order it gives them; the signing tests run exactly these. */
export function verifyCommands(names: SigningFileNames, signer: Signer, withAttestation: boolean): string[][] {
  const tlog = "--insecure-ignore-tlog=true";
  // Keyless: the certificate, the CA that issued it, and the identity and issuer it must name; no SCT is embedded.
  const proof = (certificate: string) =>
    signer.model === "key-based"
      ? ["--key", names.publicKey]
      : [
          "--certificate",
          certificate,
          "--certificate-chain",
          names.caRoot,
          "--certificate-identity",
          signer.identity,
          "--certificate-oidc-issuer",
          signer.issuer,
        ];
  const unlogged = signer.model === "key-based" ? [tlog] : [tlog, "--insecure-ignore-sct=true"];
  const commands = [
    ["cosign", "verify-blob", ...proof(names.certificate), "--signature", names.signature, ...unlogged, names.sbom],
  ];
  if (withAttestation)
    commands.push([
      "cosign",
      "verify-blob-attestation",
      ...proof(names.attestationCertificate),
      "--signature",
      names.attestation,
      "--type",
      "slsaprovenance1",
      ...unlogged,
      names.sbom,
    ]);
  return commands;
}

export interface VerifyFacts {
  names: SigningFileNames;
  scanId: string;
  sbomSha256: string;
  withAttestation: boolean;
  signer: Signer;
}

/** What VERIFY.md says of the model: what the signature proves and what to check before trusting it. */
function modelIntro(f: VerifyFacts): { intro: string[]; files: string[]; flags: string[] } {
  const { names, signer } = f;
  if (signer.model === "key-based")
    return {
      intro: [
        "Signed with a key (no certificate, no transparency log): the signature proves the SBOM came from the holder of",
        "the private key that matches `signing.pub`. Check that `signing.pub` is the key your supplier published (its",
        "SHA-256 below) before trusting it; a key taken from this zip alone proves only that the files match each other.",
      ],
      files: [
        `- \`${names.publicKey}\`: the public key that checks it (SHA-256 of its DER: \`${signer.publicKeySha256}\`)`,
      ],
      flags: [
        "`--insecure-ignore-tlog=true` is needed because key-based signatures are not logged to a transparency log;",
        "cosign warns about it.",
      ],
    };
  return {
    intro: [
      "Signed keyless: each signature was made with a key pair used once, whose short-lived certificate binds it to",
      `the identity \`${signer.identity}\` as \`${signer.issuer}\` vouched for it. Before running the commands, save`,
      `the root certificate of your supplier's certificate authority (Fulcio serves it at \`/api/v1/rootCert\`) as`,
      `\`${names.caRoot}\`, obtained from your supplier rather than from this zip: it is what the certificates must chain to.`,
    ],
    files: [
      `- \`${names.certificate}\`: the certificate of the signature's key (PEM)`,
      ...(f.withAttestation
        ? [`- \`${names.attestationCertificate}\`: the certificate of the attestation's key (PEM)`]
        : []),
    ],
    flags: [
      "The signatures were not logged to a transparency log and the certificates carry no certificate transparency",
      "timestamp (SCT): `--insecure-ignore-tlog=true` and `--insecure-ignore-sct=true` tell cosign not to look for",
      "them (it warns). Without a log entry or a signed timestamp nothing proves when the signature was made, so",
      "cosign checks the certificate against the current time: these commands succeed only while the certificate is",
      "valid (its notAfter, minutes after signing); after that they fail with an expired certificate.",
    ],
  };
}

export function verifyInstructions(f: VerifyFacts): string {
  const { names } = f;
  const model = modelIntro(f);
  const files = [
    `- \`${names.sbom}\`: the signed SBOM (CycloneDX 1.6 JSON of scan ${f.scanId}), SHA-256 \`${f.sbomSha256}\``,
    `- \`${names.signature}\`: its detached ECDSA P-256 signature (base64, SHA-256 digest)`,
    ...model.files,
    `- \`${names.sigstoreBundle}\`: the same signature as a Sigstore bundle`,
    ...(f.withAttestation
      ? [
          `- \`${names.attestation}\`: the SLSA v1 provenance of the SBOM, an in-toto statement in a DSSE envelope`,
          `- \`${names.attestationSigstoreBundle}\`: the same attestation as a Sigstore bundle`,
        ]
      : []),
    "- `VERIFY.md`: this file",
  ];
  const commands = verifyCommands(names, f.signer, f.withAttestation).map((c) => c.join(" "));
  return [
    "# Verifying this SBOM",
    "",
    ...model.intro,
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
    ...model.flags,
    "Each command prints `Verified OK` and exits 0 when the file is intact and was signed as stated; any changed",
    "byte makes it fail.",
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
