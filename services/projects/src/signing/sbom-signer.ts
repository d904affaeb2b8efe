// Signing of an SBOM export with the Sigstore libraries (docs/signing.md): the detached signature cosign's
// verify-blob reads and its Sigstore bundle (@sigstore/sign's MessageSignatureBundleBuilder), and the provenance
// statement in a DSSE envelope (DSSEBundleBuilder). Key-based: both signed with the ECDSA P-256 key at
// SIGNING_KEY_PATH, read at each signing, so a rotated file takes effect at the next scan; it and its password stay
// in this module: never returned, stored or logged (errors are reduced to an unsigned reason, never their message).
// Keyless: each signed with a key pair of its own, certified by Fulcio (keyless-signer.ts).
import { X509Certificate } from "node:crypto";
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from "node:crypto";
import { readFile } from "node:fs/promises";
import { bundleToJSON, envelopeToJSON } from "@sigstore/bundle";
import { DSSEBundleBuilder, MessageSignatureBundleBuilder, type Signer } from "@sigstore/sign";
import { open, secretBoxKey } from "@sca/secret-box";
import { certificateIdentity } from "../domain/sbom-signing/keyless-identity.ts";
import { IN_TOTO_PAYLOAD_TYPE } from "../domain/sbom-signing/provenance.ts";
import type { UnsignedReason } from "../domain/sbom-signing/signing-files.ts";
import { certifiedSigner, readIdentityToken, type KeylessSettings } from "./keyless-signer.ts";

export interface SigningSettings extends KeylessSettings {
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

/** Scans are signed, keyless or with a key file (whether that works out is known only when signing). */
export function signsScans(s: Pick<SigningSettings, "keyless" | "keyPath">): boolean {
  return s.keyless || s.keyPath !== "";
}

async function loadSigningKey(s: SigningSettings): Promise<Loaded> {
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
  model: "key-based" | "keyless";
  sbomSha256: string;
  sbomSize: number;
  /** Base64 of the DER signature: the .sig file. */
  signature: string;
  /** Key-based: the public key (SPKI PEM); keyless: null. */
  publicKey: string | null;
  /** Keyless: the certificates (PEM) of the signature's and the attestation's keys, the identity they bind and its
   *  issuer; key-based: null. */
  certificate: string | null;
  attestationCertificate: string | null;
  certificateIdentity: string | null;
  certificateIssuer: string | null;
  /** The Sigstore bundle of the signature, JSON. */
  sigstoreBundle: string;
  /** The DSSE envelope (one JSON line: the .intoto.jsonl file) and its Sigstore bundle; null when that failed. */
  attestation: string | null;
  attestationBundle: string | null;
}

export type SigningOutcome = { signed: SignedSbom } | { unsigned: UnsignedReason };

/** How each of the two signatures is made, and what the signed record keeps of the signer besides. */
interface SigningMethod {
  model: SignedSbom["model"];
  /** A signer for one signature, and the certificate it was given (keyless) once it signed. */
  signer(): { signer: Signer; certificate(): string | null };
  publicKey: string | null;
  issuer: string | null;
  /** Why a signature that threw failed, given whether a certificate had been issued. */
  failure(certified: boolean): UnsignedReason;
}

async function signingMethod(settings: SigningSettings): Promise<SigningMethod | { unsigned: UnsignedReason }> {
  if (settings.keyless) {
    const identity = await readIdentityToken(settings);
    if ("unsigned" in identity) return identity;
    return {
      model: "keyless",
      signer: () => certifiedSigner(settings.caUrl, identity.token),
      publicKey: null,
      issuer: identity.issuer,
      failure: (certified) => (certified ? "signing_failed" : "certificate_refused"),
    };
  }
  const loaded = await loadSigningKey(settings);
  if ("unsigned" in loaded) return loaded;
  const signer = keySigner(loaded.key);
  return {
    model: "key-based",
    signer: () => ({ signer, certificate: () => null }),
    publicKey: loaded.key.publicKeyPem,
    issuer: null,
    failure: () => "signing_failed",
  };
}

/**
 * Signs the SBOM's bytes and the statement `provenanceOf(digest)` makes of their digest. Best effort: any failure
 * is an unsigned reason (a failed attestation alone leaves the signature without one).
 */
export async function signSbom(
  settings: SigningSettings,
  sbom: Buffer,
  provenanceOf: (sbomSha256: string) => object,
): Promise<SigningOutcome> {
  const method = await signingMethod(settings);
  if ("unsigned" in method) return method;
  const sbomSha256 = createHash("sha256").update(sbom).digest("hex");
  const sbomSigner = method.signer();
  let message;
  try {
    message = await new MessageSignatureBundleBuilder({ signer: sbomSigner.signer, witnesses: [] }).create({
      data: sbom,
    });
  } catch {
    return { unsigned: method.failure(sbomSigner.certificate() !== null) };
  }
  const certificate = sbomSigner.certificate();
  const identity = certificate ? certificateIdentity(new X509Certificate(certificate).subjectAltName) : null;
  // A certificate naming no email or URI (a CA issuer type cosign cannot pin) gives VERIFY.md nothing to pin.
  if (method.model === "keyless" && identity === null) return { unsigned: "signing_failed" };
  let attestation: string | null = null;
  let attestationBundle: string | null = null;
  const attestationSigner = method.signer();
  try {
    const statement = Buffer.from(JSON.stringify(provenanceOf(sbomSha256)), "utf8");
    const dsse = await new DSSEBundleBuilder({ signer: attestationSigner.signer, witnesses: [] }).create({
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
      model: method.model,
      sbomSha256,
      sbomSize: sbom.length,
      signature: message.content.messageSignature.signature.toString("base64"),
      publicKey: method.publicKey,
      certificate,
      attestationCertificate: attestation ? attestationSigner.certificate() : null,
      certificateIdentity: identity,
      certificateIssuer: method.issuer,
      sigstoreBundle: JSON.stringify(bundleToJSON(message)),
      attestation,
      attestationBundle,
    },
  };
}
