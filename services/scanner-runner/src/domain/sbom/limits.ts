/**
 * Largest SBOM read, in bytes: 50 MiB. A document of exactly this size is read; one byte more is refused
 * (sbom_too_large, 413 at upload).
 */
export const SBOM_MAX_BYTES = 50 * 1024 * 1024;

/** Default ceiling of one component's raw_data once serialised (the spec's JSONB_ROW_SIZE_LIMIT_BYTES default). */
export const RAW_DATA_DEFAULT_MAX_BYTES = 262_144;

/** Longest license expression parsed (the spec's policy-gate bound); a longer one is kept as a LicenseRef. */
export const LICENSE_EXPRESSION_MAX_CHARS = 4096;
