// A signed SBOM bundle (the portal's `sbom-signature-<slug>.zip`, docs/signing.md) checked the way its VERIFY.md
// says: the public key is the one the caller trusts, the SBOM's detached signature verifies with it (cosign
// verify-blob), and the provenance attestation's envelope verifies with it and names the SBOM's digest and the SLSA v1
// predicate type (cosign verify-blob-attestation). The signatures are checked by @sigstore/verify on the bundle's
// Sigstore bundles, whose signatures must be the very ones of the cosign files beside them; the digests VERIFY.md
// prints must be the files'. Each check is one line of the report; the first failure does not hide the others.
import { createHash, createPublicKey, type KeyObject } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { bundleFromJSON, type Bundle } from "@sigstore/bundle";
import { toSignedEntity, toTrustMaterial, Verifier } from "@sigstore/verify";
import { unzipSync } from "fflate";
import { CliError } from "./exit-codes.ts";

const PREDICATE_TYPE = "https://slsa.dev/provenance/v1";
const STATEMENT_TYPE = "https://in-toto.io/Statement/v1";

export interface Check {
  ok: boolean;
  what: string;
}

export interface Verdict {
  verified: boolean;
  sbomFile: string;
  sbomSha256: string;
  /** SHA-256 of the public key's DER, to compare with the one the supplier published. */
  keySha256: string;
  /** Whether the key was pinned (--key / --key-sha256) or taken from the bundle itself. */
  keyPinned: boolean;
  checks: Check[];
}

/** The bundle's files by name: a zip, or the directory it was extracted to. */
export async function readBundle(path: string): Promise<Map<string, Buffer>> {
  const info = await stat(path).catch(() => null);
  if (!info) throw new CliError(`${path}: no such file or directory`);
  if (info.isDirectory()) {
    const names = (await readdir(path, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
    return new Map(await Promise.all(names.map(async (n) => [n, await readFile(join(path, n))] as const)));
  }
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(await readFile(path));
  } catch {
    throw new CliError(`${path}: not a zip (give the downloaded sbom-signature-<slug>.zip or its extracted directory)`);
  }
  return new Map(Object.entries(files).map(([n, b]) => [n.split("/").pop()!, Buffer.from(b)]));
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function keyDerSha256(key: KeyObject): string {
  return sha256(key.export({ type: "spki", format: "der" }));
}

/** A verifier trusting exactly one public key: no CA, no transparency log, no timestamp authority (key-based). */
function verifierFor(key: KeyObject): Verifier {
  return new Verifier(
    toTrustMaterial(
      {
        mediaType: "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
        tlogs: [],
        ctlogs: [],
        certificateAuthorities: [],
        timestampAuthorities: [],
      },
      () => ({ publicKey: key, validFor: () => true }),
    ),
    { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 },
  );
}

/** What a check found: true, or why not. */
function attempt(work: () => true | string): true | string {
  try {
    return work();
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export interface TrustedKey {
  /** The supplier's published public key (PEM), when given. */
  pem?: string;
  /** The SHA-256 (hex) of the supplier's key's DER, when given. */
  sha256?: string;
}

export function verifyBundle(files: Map<string, Buffer>, trusted: TrustedKey): Verdict {
  const sbomFile = [...files.keys()].find((n) => /^sbom-.+\.cdx\.json$/.test(n));
  if (!sbomFile) throw new CliError("no sbom-<slug>.cdx.json in the bundle: is it a signature bundle of the portal?");
  const slug = sbomFile.slice("sbom-".length, -".cdx.json".length);
  const need = (name: string) => {
    const bytes = files.get(name);
    if (!bytes) throw new CliError(`the bundle has no ${name}`);
    return bytes;
  };
  const sbom = need(sbomFile);
  const bundledPem = need("signing.pub").toString("utf8");
  const signature = need(`${sbomFile}.sig`).toString("utf8").trim();
  const messageBundle = need(`${sbomFile}.sigstore.json`);
  const verifyMd = files.get("VERIFY.md")?.toString("utf8") ?? "";
  const sbomSha256 = sha256(sbom);
  const checks: Check[] = [];
  const check = (what: string, outcome: true | string) =>
    checks.push({ ok: outcome === true, what: outcome === true ? what : `${what}: ${outcome}` });

  let bundledKey: KeyObject;
  try {
    bundledKey = createPublicKey(bundledPem);
  } catch {
    throw new CliError("signing.pub is not a public key in PEM");
  }
  const keySha256 = keyDerSha256(bundledKey);
  if (trusted.pem !== undefined) {
    const pinned = attempt(() => keyDerSha256(createPublicKey(trusted.pem!)) === keySha256 || "another key");
    check("signing.pub is the trusted key (--key)", pinned);
  }
  if (trusted.sha256 !== undefined)
    check(
      "signing.pub has the trusted SHA-256 (--key-sha256)",
      trusted.sha256.toLowerCase() === keySha256 || `its SHA-256 is ${keySha256}`,
    );
  // VERIFY.md prints both digests: they must be the files' (a zip whose files were swapped tells).
  check("VERIFY.md names the SBOM's SHA-256", verifyMd.includes(sbomSha256) || "it names another digest");
  check("VERIFY.md names the key's SHA-256", verifyMd.includes(keySha256) || "it names another digest");

  const verifier = verifierFor(bundledKey);
  const parse = (bytes: Buffer): Bundle => bundleFromJSON(JSON.parse(bytes.toString("utf8")));
  check(
    `${sbomFile}.sig is the signature of its Sigstore bundle`,
    attempt(() => {
      const content = parse(messageBundle).content;
      return (
        (content.$case === "messageSignature" && content.messageSignature.signature.toString("base64") === signature) ||
        "they differ"
      );
    }),
  );
  check(
    `${sbomFile} verifies against its signature with signing.pub`,
    attempt(() => {
      verifier.verify(toSignedEntity(parse(messageBundle), sbom));
      return true;
    }),
  );

  const attestationFile = `sbom-${slug}.intoto.jsonl`;
  const attestation = files.get(attestationFile);
  const attestationBundle = files.get(`sbom-${slug}.intoto.sigstore.json`);
  if (!attestation || !attestationBundle) {
    // docs/signing.md: a failed attestation leaves the signature alone; VERIFY.md then gives one command.
    check(`${attestationFile}: absent`, verifyMd.includes(attestationFile) ? "VERIFY.md names it" : true);
  } else {
    check(
      `${attestationFile} is the envelope of its Sigstore bundle`,
      attempt(() => {
        const content = parse(attestationBundle).content;
        const envelope = JSON.parse(attestation.toString("utf8").trim()) as {
          payload: string;
          payloadType: string;
          signatures: { sig: string }[];
        };
        return (
          (content.$case === "dsseEnvelope" &&
            content.dsseEnvelope.payload.toString("base64") === envelope.payload &&
            content.dsseEnvelope.payloadType === envelope.payloadType &&
            content.dsseEnvelope.signatures[0]?.sig.toString("base64") === envelope.signatures[0]?.sig) ||
          "they differ"
        );
      }),
    );
    check(
      `${attestationFile} verifies with signing.pub`,
      attempt(() => {
        verifier.verify(toSignedEntity(parse(attestationBundle)));
        return true;
      }),
    );
    check(
      `${attestationFile} is SLSA provenance of ${sbomFile} (its subject digest is the SBOM's)`,
      attempt(() => {
        const envelope = JSON.parse(attestation.toString("utf8").trim()) as { payload: string };
        const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8")) as {
          _type?: string;
          predicateType?: string;
          subject?: { name?: string; digest?: { sha256?: string } }[];
        };
        if (statement._type !== STATEMENT_TYPE) return `not an in-toto statement v1 (${statement._type})`;
        if (statement.predicateType !== PREDICATE_TYPE) return `predicate type ${statement.predicateType}`;
        const subject = statement.subject?.find((s) => s.name === sbomFile);
        if (!subject) return `no subject named ${sbomFile}`;
        return subject.digest?.sha256 === sbomSha256 || `the subject's digest is ${subject.digest?.sha256}`;
      }),
    );
  }
  return {
    verified: checks.every((c) => c.ok),
    sbomFile,
    sbomSha256,
    keySha256,
    keyPinned: trusted.pem !== undefined || trusted.sha256 !== undefined,
    checks,
  };
}
