import { defineEntity, p, type InferEntity } from "@mikro-orm/postgresql";

/**
 * A succeeded scan's signed CycloneDX export (docs/signing.md): either the unsigned reason, or the model, the
 * signed bytes' digest and size, the detached signature (base64 DER), the public key (SPKI PEM; key-based) or the
 * certificates (PEM), their identity and issuer (keyless), the Sigstore bundle, and the provenance attestation (DSSE
 * envelope JSON and its bundle) when that succeeded. Written once per scan; the row goes with its snapshot.
 */
export const SbomSignature = defineEntity({
  name: "SbomSignature",
  tableName: "sbom_signatures",
  properties: {
    scanId: p.uuid().primary(),
    projectId: p.uuid(),
    unsignedReason: p.string().length(32).nullable(),
    model: p.string().length(16).nullable(),
    sbomSha256: p.string().length(64).nullable(),
    sbomSize: p.bigint("number").nullable(),
    signature: p.text().nullable(),
    publicKey: p.text().nullable(),
    certificate: p.text().nullable(),
    attestationCertificate: p.text().nullable(),
    certificateIdentity: p.text().nullable(),
    certificateIssuer: p.text().nullable(),
    sigstoreBundle: p.text().nullable(),
    attestation: p.text().nullable(),
    attestationBundle: p.text().nullable(),
    recordedAt: p.datetime().defaultRaw("now()"),
  },
});

export type SbomSignatureRow = InferEntity<typeof SbomSignature>;
