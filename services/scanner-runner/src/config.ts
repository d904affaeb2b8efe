// The keys the scanner-runner reads besides the runtime's: the services it asks, its lanes' slots, the artefact
// store, every stage of a scan (sources, the sandbox and its tools, images, licenses, fingerprints, currency), the
// vulnerability database and the enrichment feeds.
import { artefactStoreKeys, key, keys, parse as p, serviceAddressKeys } from "@sca/config";
import { SERVICES } from "@sca/runtime/services";

export const scannerRunnerKeys = {
  ...serviceAddressKeys("projects", SERVICES.projects),
  // Container scans: the scan's organization (identity) and its registry login (admin).
  ...serviceAddressKeys("identity", SERVICES.identity),
  ...serviceAddressKeys("admin", SERVICES.admin),
  // Scanner-runner (docs/scanner-runner.md). Each instance has a slot budget per lane: a slot is one job at a time.
  /** The spec's worker slots, read as the manual lane's: jobs people asked for, run at once per instance. */
  TASK_WORKER_CONCURRENCY: key(p.int(2, { min: 1, max: 64 })),
  /** Our key: the automatic lane's slots per instance (webhook and scheduled scans); 0 leaves that lane to others. */
  TASK_WORKER_AUTOMATIC_CONCURRENCY: key(p.int(1, { min: 0, max: 64 })),
  SCAN_LEASE_SECONDS: keys.SCAN_LEASE_SECONDS,
  SCAN_LOG_LINE_MAX_LEN: keys.SCAN_LOG_LINE_MAX_LEN,
  SCAN_LOG_MAX_LINES_PER_SCAN: keys.SCAN_LOG_MAX_LINES_PER_SCAN,
  JSONB_ROW_SIZE_LIMIT_BYTES: keys.JSONB_ROW_SIZE_LIMIT_BYTES,
  /** The spec's scope filter: components an SBOM marks as non-runtime (excluded) are dropped before persist. */
  SCAN_SCOPE_FILTER_ENABLED: key(p.bool(true)),
  /** The spec's refinements per ecosystem: false keeps Maven's (npm's) non-runtime components while the filter is on. */
  SCAN_SCOPE_FILTER_MAVEN_ENABLED: key(p.bool(true)),
  SCAN_SCOPE_FILTER_NODE_ENABLED: key(p.bool(true)),
  /** The spec's license lookup (docs/license-fetch.md): components without a license get their registry's. */
  LICENSE_FETCH_ENABLED: key(p.bool(true)),
  /** Ours: per registry request, the requests in flight, and the whole lookup of one scan. */
  LICENSE_FETCH_TIMEOUT_SECONDS: key(p.int(10, { min: 1, max: 120, clamp: true })),
  LICENSE_FETCH_CONCURRENCY: key(p.int(4, { min: 1, max: 32, clamp: true })),
  LICENSE_FETCH_STAGE_SECONDS: key(p.int(60, { min: 1, max: 600, clamp: true })),
  /**
   * Ours: how long a scan's outcome waits for its registry lookups (licenses and currency); what has not answered by
   * then is looked up after the outcome and filled in when it arrives (docs/license-fetch.md, "After the outcome").
   */
  REGISTRY_LOOKUP_WAIT_SECONDS: key(p.int(2, { min: 0, max: 600, clamp: true })),
  /** The spec's vendored-OSS stage of source scans (docs/fingerprint.md): sends file hashes, never source. */
  FINGERPRINT_ENABLED: key(p.bool(false)),
  /** A Software Heritage style /known/ endpoint; the default is the public archive's. */
  FINGERPRINT_API_URL: key(p.httpUrl("https://archive.softwareheritage.org/api/1/known/")),
  /** Sent as a bearer token when set. */
  FINGERPRINT_API_KEY: key(p.text(""), true),
  FINGERPRINT_TIMEOUT_SECONDS: key(p.int(300, { min: 1, max: 3600 })),
  // Source scans (docs/source-scans.md): the hostile-code sandbox's limits, all ours.
  /**
   * Hosts a clone may reach although they are loopback, link-local or private: names (exact), addresses or CIDR
   * ranges, comma-separated. Empty: only public addresses are cloned from.
   */
  SCAN_GIT_ALLOWED_HOSTS: key(p.list([])),
  /** The whole clone (fetch and checkout) is stopped after this long. */
  SCAN_CLONE_TIMEOUT_SECONDS: key(p.int(300, { min: 5, max: 3600 })),
  /** The largest clone: the fetched objects and the checked-out tree, each. */
  SCAN_CLONE_MAX_BYTES: key(p.int(1024 ** 3, { min: 1024 ** 2, max: 20 * 1024 ** 3 })),
  SOURCE_ARCHIVE_MAX_BYTES: keys.SOURCE_ARCHIVE_MAX_BYTES,
  /** The most entries an uploaded source archive may hold. */
  SOURCE_ARCHIVE_MAX_ENTRIES: key(p.int(100_000, { min: 10, max: 10_000_000 })),
  /** The most bytes an uploaded source archive may expand to (zip bombs stop here). */
  SOURCE_ARCHIVE_MAX_EXPANDED_BYTES: key(p.int(2 * 1024 ** 3, { min: 1024 ** 2, max: 50 * 1024 ** 3 })),
  /** The cdxgen command or its bin/cdxgen.js; empty: the cdxgen on PATH (set-up links .tools/bin/cdxgen). */
  CDXGEN_BIN: key(p.text("")),
  /** cdxgen is stopped after this long. */
  CDXGEN_TIMEOUT_SECONDS: key(p.int(600, { min: 5, max: 7200 })),
  /** After a source scan, the next scan's cdxgen is started and loaded ahead, in the sandbox (docs/source-scans.md). */
  CDXGEN_PRESTART_ENABLED: key(p.bool(true)),
  /** A sandboxed tool's memory: V8's heap for node tools, the address space for the others. */
  SCAN_TOOL_MEMORY_MB: key(p.int(2048, { min: 128, max: 65536 })),
  /** A tool's stdout and stderr past this many bytes (each) are read and dropped, not logged. */
  SCAN_TOOL_OUTPUT_MAX_BYTES: key(p.int(4 * 1024 ** 2, { min: 1024, max: 1024 ** 3 })),
  /** Where each job's private working directory is made (removed afterwards); empty: the OS temp directory. */
  SCAN_WORK_DIR: key(p.text("")),
  /** When the runner runs as root, tools run as this user and group id instead (nobody). */
  SCAN_SANDBOX_UID: key(p.int(65534, { min: 1, max: 2 ** 31 - 1 })),
  // The scancode first-party license stage (docs/scancode.md).
  /** The scancode command; empty: the scancode on PATH (set-up links .tools/bin/scancode). */
  SCANCODE_BIN: key(p.text("")),
  /** scancode is stopped after this long; the scan then keeps the declared licenses only. */
  SCANCODE_TIMEOUT_SECONDS: key(p.int(600, { min: 1, max: 7200 })),
  /** A tree with more files than this skips the stage (0: every tree does, the stage is off). */
  SCANCODE_MAX_FILES: key(p.int(20_000, { min: 0, max: 10_000_000 })),
  /** The most license detections persisted per scan. */
  SCANCODE_MAX_DETECTIONS: key(p.int(5000, { min: 1, max: 1_000_000 })),
  /** The largest output scancode may write; past it the stage's result is dropped. */
  SCANCODE_MAX_RESULT_BYTES: key(p.int(268_435_456, { min: 1024, max: 16 * 1024 ** 3 })),
  // Container scans (docs/container-scans.md): the image pull and the layers' unpacking, all ours.
  /** Registry hosts an image pull may reach although non-public: names (exact), addresses or CIDR ranges. */
  SCAN_REGISTRY_ALLOWED_HOSTS: key(p.list([])),
  /** Registry hosts (host or host:port) spoken to over plain http instead of https, e.g. a registry on loopback. */
  SCAN_REGISTRY_PLAIN_HTTP_HOSTS: key(p.list([])),
  /** The whole pull (manifests, config, layers) is stopped after this long. */
  SCAN_IMAGE_PULL_TIMEOUT_SECONDS: key(p.int(600, { min: 5, max: 7200 })),
  SCAN_IMAGE_MAX_BYTES: keys.SCAN_IMAGE_MAX_BYTES,
  /** The most bytes an image's layers may unpack to, every layer counted. */
  SCAN_IMAGE_MAX_EXPANDED_BYTES: key(p.int(8 * 1024 ** 3, { min: 1024 ** 2, max: 100 * 1024 ** 3 })),
  /** The most entries an image's layers may hold together. */
  SCAN_IMAGE_MAX_ENTRIES: key(p.int(1_000_000, { min: 10, max: 50_000_000 })),
  /** The platform chosen from a multi-platform image (an image index), os/architecture[/variant]. */
  SCAN_IMAGE_PLATFORM: key(p.text("linux/amd64")),
  /** The OSV advisory source (docs/vulnerability-database.md): a directory, .zip or .tar(.gz), path or http(s) URL;
   * empty: the vendored snapshot. May carry a credential in its URL: secret. */
  VULNDB_REPOSITORY: key(p.text(""), true),
  VULNDB_REFRESH_HOURS: key(p.int(168, { min: 1, max: 8760 })),
  VULNDB_TIMEOUT_SECONDS: key(p.int(300, { min: 1, max: 3600 })),
  ...artefactStoreKeys,
  // Enrichment feeds of the scanner-runner (docs/enrichment-feeds.md): the spec's KEV_*, EOL_* and MALICIOUS_* keys,
  // and ours for EPSS (the spec names none) and the malicious snapshot's directory.
  KEV_FEED_URL: key(p.httpUrl("https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json")),
  KEV_REFRESH_ENABLED: key(p.bool(true)),
  KEV_REFRESH_TIMEOUT_SECONDS: key(p.int(30, { min: 1, max: 600 })),
  /** Ours: FIRST's daily EPSS CSV (gzip as published, or plain). */
  EPSS_FEED_URL: key(p.httpUrl("https://epss.empiricalsecurity.com/epss_scores-current.csv.gz")),
  /** Ours: false keeps the vendored (or last synced) scores. */
  EPSS_REFRESH_ENABLED: key(p.bool(true)),
  /** Ours: the whole download and load. */
  EPSS_REFRESH_TIMEOUT_SECONDS: key(p.int(120, { min: 1, max: 3600 })),
  EOL_ENABLED: key(p.bool(true)),
  /** A directory of endoflife.date product files (<product>.json) replacing the vendored one. */
  EOL_SNAPSHOT_PATH: key(p.text("")),
  /** The spec: only true, 1 and yes enable; anything else leaves the live fetch off. */
  EOL_REFRESH_ENABLED: key(p.optIn()),
  EOL_FEED_URL_TEMPLATE: key((raw) => {
    const value = raw ?? "https://endoflife.date/api/{product}.json";
    if (!value.includes("{product}")) throw new Error("must contain {product}");
    p.httpUrl()(value.replaceAll("{product}", "x"), {});
    return value;
  }),
  EOL_REFRESH_TIMEOUT_SECONDS: key(p.int(15, { min: 1, max: 120, clamp: true })),
  MALICIOUS_ENABLED: key(p.bool(true)),
  MALICIOUS_REFRESH_ENABLED: key(p.bool(false)),
  /** Ours: a directory of OSV MAL- records (any depth, as ossf/malicious-packages lays them out); empty: vendored. */
  MALICIOUS_SNAPSHOT_PATH: key(p.text("")),
  MALICIOUS_SNAPSHOT_STALE_DAYS: key(p.int(60, { min: 1, max: 3650 })),
  // Ours: the component currency lookup of the scanner-runner (docs/enrichment-feeds.md, "Currency"): each package
  // registry's base URL (a mirror may stand in for it), the per-request timeout and the requests in flight.
  CURRENCY_ENABLED: key(p.bool(true)),
  CURRENCY_LOOKUP_TIMEOUT_SECONDS: key(p.int(10, { min: 1, max: 120, clamp: true })),
  CURRENCY_LOOKUP_CONCURRENCY: key(p.int(4, { min: 1, max: 32, clamp: true })),
  /** The whole lookup of one scan; packages not reached stay unassessed. */
  CURRENCY_LOOKUP_STAGE_SECONDS: key(p.int(60, { min: 1, max: 600, clamp: true })),
  PACKAGE_REGISTRY_NPM_URL: key(p.httpUrl("https://registry.npmjs.org")),
  PACKAGE_REGISTRY_PYPI_URL: key(p.httpUrl("https://pypi.org")),
  PACKAGE_REGISTRY_CRATES_URL: key(p.httpUrl("https://crates.io")),
  PACKAGE_REGISTRY_GO_URL: key(p.httpUrl("https://proxy.golang.org")),
  PACKAGE_REGISTRY_NUGET_URL: key(p.httpUrl("https://api.nuget.org")),
  PACKAGE_REGISTRY_RUBYGEMS_URL: key(p.httpUrl("https://rubygems.org")),
  PACKAGE_REGISTRY_MAVEN_URL: key(p.httpUrl("https://repo1.maven.org/maven2")),
};
