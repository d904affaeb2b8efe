// The provenance attestation's statement: an in-toto Statement v1 whose subject is the signed SBOM (its file name
// and SHA-256) and whose predicate is SLSA Provenance v1 (docs/signing.md, "The attestation"). cosign's
// `verify-blob-attestation --type slsaprovenance1` reads exactly this shape.
export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";
export const IN_TOTO_STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
export const SLSA_PROVENANCE_TYPE = "https://slsa.dev/provenance/v1";
/** The name builder.version's one entry has (SLSA v1 makes builder.version a map of component to version). */
export const BUILDER_VERSION_NAME = "sca-portal";

export interface ProvenanceFacts {
  sbomFileName: string;
  sbomSha256: string;
  /** The deployment's origin, https://DOMAIN: {base_url}. */
  baseUrl: string;
  /** SLSA_BUILDER_ID, else {base_url}/sbom-signing/builder/v1. */
  builderId: string;
  /** SERVICE_VERSION, SERVICE_COMMIT and SERVICE_BUILT_AT as configured. */
  serviceVersion: string;
  projectId: string;
  scanId: string;
  /** The snapshot's release label, when it has one. */
  release: string | null;
  /** The SBOM the scan read: its format and spec version. */
  sourceFormat: string;
  /** When the snapshot was ingested (the build started) and when the export was signed (it finished). */
  ingestedAt: Date;
  signedAt: Date;
}

export function builderIdOf(configured: string, baseUrl: string): string {
  return configured.trim() || `${baseUrl}/sbom-signing/builder/v1`;
}

export function provenanceStatement(f: ProvenanceFacts): object {
  return {
    _type: IN_TOTO_STATEMENT_TYPE,
    subject: [{ name: f.sbomFileName, digest: { sha256: f.sbomSha256 } }],
    predicateType: SLSA_PROVENANCE_TYPE,
    predicate: {
      buildDefinition: {
        buildType: `${f.baseUrl}/sbom-signing/cyclonedx-export/v1`,
        externalParameters: {
          project_id: f.projectId,
          scan_id: f.scanId,
          format: "cyclonedx-json",
          ...(f.release !== null ? { release: f.release } : {}),
        },
        internalParameters: { base_url: f.baseUrl, source_format: f.sourceFormat },
      },
      runDetails: {
        builder: { id: f.builderId, version: { [BUILDER_VERSION_NAME]: f.serviceVersion } },
        metadata: {
          invocationId: `${f.baseUrl}/v1/scans/${f.scanId}`,
          startedOn: f.ingestedAt.toISOString(),
          finishedOn: f.signedAt.toISOString(),
        },
      },
    },
  };
}
