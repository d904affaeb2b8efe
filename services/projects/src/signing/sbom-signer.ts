// Key-based signing of an SBOM export with the Sigstore libraries (docs/signing.md): the detached signature cosign's
// verify-blob reads and its Sigstore bundle (@sigstore/sign's MessageSignatureBundleBuilder), and the provenance
// statement in a DSSE envelope (DSSEBundleBuilder), both signed with the ECDSA P-256 key at SIGNING_KEY_PATH. The
// key is read at each signing, so a rotated file takes effect at the next scan; it and its password stay in this
// module: never returned, stored or logged (errors are reduced to an unsigned reason, never their message).
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from "node:crypto";
import { readFile } from "node:fs/promises";
import { bundleToJSON, envelopeToJSON } from "@sigstore/bundle";
import { DSSEBundleBuilder, MessageSignatureBundleBuilder, type Signer } from "@sigstore/sign";
import { open, secretBoxKey } from "@sca/secret-box";
import { IN_TOTO_PAYLOAD_TYPE } from "../domain/sbom-signing/provenance.ts";
import type { UnsignedReason } from "../domain/sbom-signing/signing-files.ts";

export interface SigningSettings {
  keyless: boolean;
  /** SIGNING_KEY_PATH; empty: signing is off. */
  keyPath: string;
  /** SIGNING_KEY_PASSWORD_ENCRYPTED; empty: the key has no password. */
  sealedPassword: string;
  /** signingPasswordBoxKey(SECRET_KEY): what opens the sealed password. */
  passwordBoxKey: Buffer;
}

/** The secret box key the signing key's password is sealed under (docs/signing.md, "The key and its password"). */
export function signingPasswordBoxKey(secretKey: string): Buffer {
  return secretBoxKey(secretKey, "signing-key-password", "sca-projects");
}

interface SigningKey {
  privateKey: KeyObject;
  /** SubjectPublicKeyInfo, PEM: signing.pub. */
  publicKeyPem: string;
}

type Loaded = { key: SigningKey } | { unsigned: UnsignedReason };

/** Scans are signed with a key file (whether it reads is known only when signing). */
export function signsWithKey(s: Pick<SigningSettings, "keyless" | "keyPath">): boolean {
  return !s.keyless && s.keyPath !== "";
}

async function loadSigningKey(s: SigningSettings): Promise<Loaded> {
  if (s.keyless) return { unsigned: "keyless_unavailable" };
  if (!s.keyPath) return { unsigned: "not_configured" };
  let pem: Buffer;
  try {
    pem = await readFile(s.keyPath);
  } catch {
    return { unsigned: "key_unreadable" };
  }
  let passphrase: string | undefined;
  if (s.sealedPassword) {
    try {
      passphrase = open(s.sealedPassword, s.passwordBoxKey);
    } catch {
      return { unsigned: "password_undecryptable" };
    }
  }
  try {
    const privateKey = createPrivateKey({
      key: pem,
      format: "pem",
      ...(passphrase !== undefined ? { passphrase } : {}),
    });
    if (privateKey.asymmetricKeyType !== "ec" || privateKey.asymmetricKeyDetails?.namedCurve !== "prime256v1")
      return { unsigned: "key_unusable" };
    const publicKeyPem = createPublicKey(privateKey).export({ type: "spki", format: "pem" }).toString();
    return { key: { privateKey, publicKeyPem } };
  } catch {
    return { unsigned: "key_unusable" };
  }
}

/** ECDSA over SHA-256, DER-encoded: what cosign writes and reads as a blob signature. */
function keySigner(key: SigningKey): Signer {
  return {
    sign: (data) =>
      Promise.resolve({
        signature: sign("sha256", data, key.privateKey),
        key: { $case: "publicKey", publicKey: key.publicKeyPem, hint: publicKeyHint(key.publicKeyPem) },
      }),
  };
}

/** SHA-256 (hex) of the public key's DER: the bundles' key hint and what VERIFY.md shows to compare keys. */
export function publicKeyHint(publicKeyPem: string): string {
  const der = createPublicKey(publicKeyPem).export({ type: "spki", format: "der" });
  return createHash("sha256").update(der).digest("hex");
}

export interface SignedSbom {
  model: "key-based";
  sbomSha256: string;
  sbomSize: number;
  /** Base64 of the DER signature: the .sig file. */
  signature: string;
  publicKey: string;
  /** The Sigstore bundle of the signature, JSON. */
  sigstoreBundle: string;
  /** The DSSE envelope (one JSON line: the .intoto.jsonl file) and its Sigstore bundle; null when that failed. */
  attestation: string | null;
  attestationBundle: string | null;
}

export type SigningOutcome = { signed: SignedSbom } | { unsigned: UnsignedReason };

/**
 * Signs the SBOM's bytes and the statement `provenanceOf(digest)` makes of their digest. Best effort: any failure
 * is an unsigned reason (a failed attestation alone leaves the signature without one).
 */
export async function signSbom(
  settings: SigningSettings,
  sbom: Buffer,
  provenanceOf: (sbomSha256: string) => object,
): Promise<SigningOutcome> {
  const loaded = await loadSigningKey(settings);
  if ("unsigned" in loaded) return loaded;
  const signer = keySigner(loaded.key);
  const sbomSha256 = createHash("sha256").update(sbom).digest("hex");
  let message;
  try {
    message = await new MessageSignatureBundleBuilder({ signer, witnesses: [] }).create({ data: sbom });
  } catch {
    return { unsigned: "signing_failed" };
  }
  let attestation: string | null = null;
  let attestationBundle: string | null = null;
  try {
    const statement = Buffer.from(JSON.stringify(provenanceOf(sbomSha256)), "utf8");
    const dsse = await new DSSEBundleBuilder({ signer, witnesses: [] }).create({
      data: statement,
      type: IN_TOTO_PAYLOAD_TYPE,
    });
    attestation = `${JSON.stringify(envelopeToJSON(dsse.content.dsseEnvelope))}\n`;
    attestationBundle = JSON.stringify(bundleToJSON(dsse));
  } catch {
    // Best effort: the signature stands without its attestation.
  }
  return {
    signed: {
      model: "key-based",
      sbomSha256,
      sbomSize: sbom.length,
      signature: message.content.messageSignature.signature.toString("base64"),
      publicKey: loaded.key.publicKeyPem,
      sigstoreBundle: JSON.stringify(bundleToJSON(message)),
      attestation,
      attestationBundle,
    },
  };
}
