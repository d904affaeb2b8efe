// The keys projects reads besides the runtime's: the services it asks, the artefact store, its inventory's limits,
// the external lookups and the vulnerability SLA.
import { artefactStoreKeys, key, keys, parse as p, serviceAddressKeys } from "@sca/config";
import { SERVICES } from "@sca/runtime/services";

export const projectsKeys = {
  ...serviceAddressKeys("identity", SERVICES.identity),
  ...serviceAddressKeys("policy", SERVICES.policy),
  // The external lookups ask the runner's advisory database (docs/findings.md, "External lookups").
  ...serviceAddressKeys("scanner-runner", SERVICES["scanner-runner"]),
  ...artefactStoreKeys,
  JSONB_ROW_SIZE_LIMIT_BYTES: keys.JSONB_ROW_SIZE_LIMIT_BYTES,
  /** Projects: the write fences of the component pages the gateway keeps (ADR 12). */
  REDIS_URL: keys.REDIS_URL,
  /**
   * Memory for the component list pages kept, per instance: projects' (docs/inventory.md) and the gateway's (ADR 12,
   * docs/gateway.md); 0 keeps none.
   */
  COMPONENT_PAGE_CACHE_MB: key(p.int(64, { min: 0, max: 4096 })),
  /**
   * Memory for the finding list orders and the counts of findings projects keeps, per instance (docs/findings.md);
   * 0 keeps none.
   */
  FINDING_READ_CACHE_MB: key(p.int(64, { min: 0, max: 4096 })),
  /** The longest malicious-package waiver, in days (docs/enrichment-feeds.md, "Waivers"). */
  MALICIOUS_WAIVE_MAX_DAYS: keys.MALICIOUS_WAIVE_MAX_DAYS,
  /** GET /v1/external-packages and /v1/external-advisories/{id}; false answers 404 (docs/findings.md). */
  EXTERNAL_PACKAGE_LOOKUP_ENABLED: key(p.bool(true)),
  // Vulnerability SLA (docs/findings.md, "Remediation windows"): days from a finding's first detection to its due
  // date; an invalid value falls back to the default, as the spec says. Info and unknown have no window.
  VULN_SLA_DAYS_CRITICAL: key(p.int(7, { min: 1, max: 3650, fallbackOnInvalid: true })),
  VULN_SLA_DAYS_HIGH: key(p.int(30, { min: 1, max: 3650, fallbackOnInvalid: true })),
  VULN_SLA_DAYS_MEDIUM: key(p.int(90, { min: 1, max: 3650, fallbackOnInvalid: true })),
  VULN_SLA_DAYS_LOW: key(p.int(180, { min: 1, max: 3650, fallbackOnInvalid: true })),
  /** The daily SLA sweep (marking breaches, which alert once each); only false, 0 or no turn it off. */
  VULN_SLA_ALERTS_ENABLED: key(p.optOut()),
  // SBOM signing (docs/signing.md): the export's metadata, the provenance's builder and the signing key. The key file
  // is read at each signing (a rotated key takes effect without a restart); its password comes only as a value
  // sealed with the deployment's secret box (SECRET_KEY), never in clear.
  SERVICE_VERSION: keys.SERVICE_VERSION,
  DOMAIN: keys.DOMAIN,
  /** The CycloneDX export's metadata.authors; omitted when unset. */
  SBOM_AUTHOR: key(p.text("")),
  /** The provenance's builder.id; empty: https://DOMAIN/sbom-signing/builder/v1. */
  SLSA_BUILDER_ID: key(p.text("")),
  /** Keyless signing: a certificate from SIGNING_CA_URL for the identity token at SIGNING_OIDC_TOKEN_PATH. */
  SIGNING_KEYLESS: key(p.bool(false)),
  /** Keyless: the Fulcio CA's base URL (e.g. https://fulcio.example.internal); empty: keyless scans stay unsigned. */
  SIGNING_CA_URL: key(p.httpUrl("")),
  /** Keyless: the issuer the identity token must name (its `iss`), which the certificates then name. */
  SIGNING_OIDC_ISSUER: key(p.httpUrl("")),
  /** Keyless: the file holding the workload identity token, read at each signing (a projected token). */
  SIGNING_OIDC_TOKEN_PATH: key(p.text("")),
  /** A transparency log's URL: not used (nothing is logged; a warning at start when set with SIGNING_KEYLESS). */
  SIGNING_LOG_URL: key(p.httpUrl("")),
  /** An ECDSA P-256 private key, PKCS#8 PEM (encrypted or not) or SEC1 PEM; empty: scans stay unsigned. */
  SIGNING_KEY_PATH: key(p.text("")),
  /** The encrypted key's password, sealed with `./dev seal-signing-password` (docs/signing.md); empty: none. */
  SIGNING_KEY_PASSWORD_ENCRYPTED: key(p.text("")),
  // Source hosts (docs/scm.md, "App credentials"): host A's REST API the installed apps write to, how long a call may
  // take, and the <service_name> of remediation branches.
  SCM_API_URL: key(p.httpUrl("https://api.github.com")),
  SCM_HTTP_TIMEOUT_MS: key(p.int(10_000, { min: 100, max: 120_000 })),
  REMEDIATION_SERVICE_NAME: key(p.text("sca-portal")),
  /**
   * A pull-request webhook's scan comments its pull request by itself once it succeeded, on an opted-in project
   * (docs/scm.md, "Pull-request comments"); only false, 0 or no turn it off (the route still posts it).
   */
  SCM_PR_COMMENT_AUTOMATIC: key(p.optOut()),
};
