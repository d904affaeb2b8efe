// The environment keys of the spec's Limits table (and the few deployment keys every process needs),
// with the spec's defaults, bounds and clamps. A service picks the keys it uses and loads them once.
import { isAbsolute, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import type { KeySpec } from "./load.ts";
import * as p from "./parse.ts";

const key = <T>(parse: p.Parser<T>, secret = false): KeySpec<T> => ({ parse, secret });

const appEnv = p.oneOf(["dev", "staging", "prod"] as const, "dev");

export const keys = {
  // Deployment
  APP_ENV: key(appEnv),
  LOG_LEVEL: key(p.oneOf(["DEBUG", "INFO", "WARNING", "ERROR"] as const, "INFO", { caseInsensitive: true })),
  SECRET_KEY: key((raw, env) => {
    const value = p.required("the JWT signing key")(raw, env);
    if (appEnv(env.APP_ENV?.trim() || undefined, env) !== "dev" && value.length < 32) {
      throw new Error("must be at least 32 characters outside APP_ENV=dev");
    }
    return value;
  }, true),
  DATABASE_URL: key(p.required("a postgresql:// DSN"), true),
  REDIS_URL: key(p.text("redis://127.0.0.1:6379"), true),
  KAFKA_BROKERS: key(p.list(["127.0.0.1:9092"])),
  /** Put before every topic name on the broker (as Hyades' KAFKA_TOPIC_PREFIX), so deployments can share a cluster. */
  KAFKA_TOPIC_PREFIX: key((raw) => {
    const prefix = raw ?? "";
    // Kafka's topic characters; short enough that the longest name with ".dlq" stays within the broker's 249.
    if (!/^[A-Za-z0-9._-]{0,100}$/.test(prefix))
      throw new Error("must be at most 100 of the characters A-Z a-z 0-9 . _ -");
    return prefix;
  }),
  /**
   * How long a consumer's fetch waits on the broker for records: kafkajs's 5 s by default. A consumer stops only
   * after its fetch in flight returns; the test kit shortens it so that stopping hundreds of services is quick.
   */
  KAFKA_FETCH_MAX_WAIT_MS: key(p.int(5000, { min: 10, max: 30_000 })),
  DOMAIN: key(p.text("localhost")),
  CORS_ALLOWED_ORIGINS: key((raw, env) => {
    const origins = p.list([])(raw, env);
    // Credentials (the refresh cookie) are allowed cross-origin, so a wildcard would hand them to any site.
    if (origins.includes("*")) throw new Error("must not contain * (credentials are allowed)");
    for (const o of origins) {
      try {
        const u = new URL(o);
        if (u.origin !== o) throw new Error();
      } catch {
        throw new Error(`"${o}" is not an origin such as https://portal.example.com`);
      }
    }
    return origins;
  }),
  HTTP_PORT: key(p.int(8080, { min: 1, max: 65535 })),
  /** Unset: the service's default port; 0: any free port (tests). */
  RPC_PORT: key(p.int(-1, { min: 0, max: 65535 })),
  /** The address a domain service's Connect server binds (0.0.0.0 in a pod; loopback on one machine). */
  RPC_HOST: key(p.text("127.0.0.1")),
  // The largest request a service reads. 64 MiB: RecordScanMatches carries one verdict per distinct package version
  // of an inventory, and an SBOM at SBOM_MAX_BYTES (50 MiB, ~60,000 components) made 5 MB at 50,000 (4 MiB refused it).
  RPC_READ_MAX_BYTES: key(p.int(64 * 1024 * 1024, { min: 1024, max: 256 * 1024 * 1024 })),
  SERVICE_VERSION: key(p.text("unknown")),
  SERVICE_COMMIT: key(p.text("unknown")),
  SERVICE_BUILT_AT: key(p.text("unknown")),

  // Edge
  /** Reverse proxies in front of the gateway whose X-Forwarded-For is believed (1 behind one ingress). */
  TRUST_PROXY_HOPS: key(p.int(0, { min: 0, max: 10 })),
  DEMO_READ_ONLY: key(p.bool(false)),
  DEMO_ALLOW_SANDBOX_SCANS: key(p.bool(false)),
  METRICS_ENABLED: key(p.bool(false)),
  METRICS_TOKEN: key(p.text(""), true),
  WEBHOOK_MAX_BODY_BYTES: key(p.int(2097152, { min: 65536, max: 26214400, clamp: true })),
  WEBHOOK_RATE_LIMIT: key(p.rate("120/minute")),

  // Authentication
  AUTH_SELF_REGISTRATION: key(p.bool(true)),
  ACCESS_TOKEN_EXPIRE_MINUTES: key(p.int(30, { min: 1, max: 24 * 60 })),
  REFRESH_TOKEN_EXPIRE_DAYS: key(p.int(7, { min: 1, max: 365 })),
  REFRESH_TOKEN_RETENTION_GRACE_DAYS: key(p.int(1, { min: 0, max: 365 })),
  PASSWORD_RESET_TOKEN_RETENTION_GRACE_DAYS: key(p.int(1, { min: 0, max: 365 })),
  PASSWORD_RESET_BASE_URL: key(p.text("http://127.0.0.1:8080/reset-password")),
  PASSWORD_RESET_RATE_LIMIT: key(p.rate("5/minute")),
  PASSWORD_RESET_EMAIL_COOLDOWN_SECONDS: key(p.int(300, { min: 0, max: 86400 })),
  PASSWORD_RESET_CONFIRM_RATE_LIMIT: key(p.rate("5/minute")),
  REGISTRATION_RATE_LIMIT: key(p.rate("5/minute")),
  REFRESH_RATE_LIMIT: key(p.rate("30/minute")),
  GROUP_SEARCH_RATE_LIMIT: key(p.rate("20/minute")),
  OAUTH_AUTHORIZE_RATE_LIMIT: key(p.rate("20/minute")),
  LOGIN_THROTTLE_ENABLED: key(p.bool(true)),
  LOGIN_THROTTLE_FAILURES: key(p.int(10, { min: 1, max: 1000 })),
  LOGIN_THROTTLE_WINDOWS: key(p.intList([60, 300, 900, 1800], { min: 1 })),
  GROUP_CASCADE_ENABLED: key(p.bool(true)),
  // The build gate (docs/gate.md): the deployment's defaults under the gate policies.
  GATE_MALICIOUS_ENABLED: key(p.bool(true)),
  /** 0..1; unset (or empty) leaves the EPSS check off unless a gate policy sets a threshold. */
  GATE_EPSS_THRESHOLD: key((raw): number | null => {
    if (raw === undefined || raw.trim() === "") return null;
    return p.num(0, { min: 0, max: 1 })(raw, {});
  }),
  GATE_EPSS_ON_MISSING_DATA: key(p.oneOf(["allow", "block"] as const, "allow")),
  OAUTH_IDP_A_CLIENT_ID: key(p.text("")),
  OAUTH_IDP_A_CLIENT_SECRET: key(p.text(""), true),
  OAUTH_IDP_B_CLIENT_ID: key(p.text("")),
  OAUTH_IDP_B_CLIENT_SECRET: key(p.text(""), true),
  OAUTH_STATE_TTL_SECONDS: key(p.int(300, { min: 30, max: 3600 })),
  OAUTH_HTTP_TIMEOUT_SECONDS: key(p.int(10, { min: 1, max: 120 })),
  OAUTH_LOGIN_REDIRECT_DEFAULT: key(p.text("/")),
  OAUTH_LOGIN_REDIRECT_FAILURE: key(p.text("/login")),
  OIDC_ISSUER: key(p.text("")),
  OIDC_CLIENT_ID: key(p.text("")),
  OIDC_CLIENT_SECRET: key(p.text(""), true),
  OIDC_SCOPES: key(p.text("openid email profile")),
  OIDC_GROUPS_CLAIM: key(p.text("groups")),
  OIDC_GROUP_ROLE_MAP: key(p.text("")),
  AUTH_AUTO_REGISTER: key(p.bool(false)),
  DEFAULT_MEMBER_ROLE: key(p.text("")),

  // Notifications (docs/notifications.md)
  /** Empty: the e-mail channel is skipped (logged once at start). */
  SMTP_HOST: key(p.text("")),
  SMTP_PORT: key(p.int(587, { min: 1, max: 65535 })),
  SMTP_USER: key(p.text("")),
  SMTP_PASSWORD: key(p.text(""), true),
  /** Upgrade the connection with STARTTLS and refuse a server that does not offer it; false: plain SMTP. */
  SMTP_USE_STARTTLS: key(p.bool(true)),
  SMTP_FROM: key(p.text("SCA Portal <no-reply@localhost>")),
  SMTP_TIMEOUT_SECONDS: key(p.int(10, { min: 1, max: 300 })),
  /** Timeout of each chat and ticket webhook call (connect to answer). */
  NOTIFICATION_HTTP_TIMEOUT_SECONDS: key(p.int(10, { min: 1, max: 300 })),
  /** Org-wide chat webhooks; empty: that channel is off. The URL is the credential: secret. */
  SLACK_WEBHOOK_URL: key(p.httpUrl(""), true),
  TEAMS_WEBHOOK_URL: key(p.httpUrl(""), true),
  /** Where ticket events are posted; empty: nothing is called. */
  TICKET_WEBHOOK_URL: key(p.httpUrl(""), true),
  /** Notification kinds posted as ticket events; empty: every kind. */
  TICKET_WEBHOOK_EVENTS: key(p.list()),
  /**
   * Hosts a team's own chat webhook URL may name (docs/notifications.md, "Per-team chat webhooks"): exact names, or
   * `*.suffix` for any name under it. Team admins set those URLs, so the notifier must not be pointed anywhere else.
   */
  TEAM_CHAT_WEBHOOK_ALLOWED_HOSTS: key(
    p.list(["hooks.slack.com", "*.webhook.office.com", "*.logic.azure.com", "*.api.powerplatform.com"]),
  ),
  /** Optional bearer of the ticket webhook calls. */
  TICKET_WEBHOOK_TOKEN: key(p.text(""), true),
  /** The backlog series (the scan and default queues' Kafka consumer lag); the alert needs it. */
  QUEUE_BACKLOG_METRICS_ENABLED: key(p.bool(false)),
  /** The daily backlog sweep's in-app alert (once per breach); only with QUEUE_BACKLOG_METRICS_ENABLED. */
  QUEUE_BACKLOG_ALERT_ENABLED: key(p.bool(false)),
  /** Messages waiting in the scan queue (the scan-job topics) past which it is in breach. */
  QUEUE_BACKLOG_ALERT_SCAN_QUEUE_THRESHOLD: key(p.int(10, { min: 1, max: 10_000_000 })),
  /** Messages waiting in the default queue (the domain events, its slowest consumer) past which it is in breach. */
  QUEUE_BACKLOG_ALERT_DEFAULT_QUEUE_THRESHOLD: key(p.int(100, { min: 1, max: 10_000_000 })),

  // Vulnerability SLA (docs/findings.md, "Remediation windows"): days from a finding's first detection to its due
  // date; an invalid value falls back to the default, as the spec says. Info and unknown have no window.
  VULN_SLA_DAYS_CRITICAL: key(p.int(7, { min: 1, max: 3650, fallbackOnInvalid: true })),
  VULN_SLA_DAYS_HIGH: key(p.int(30, { min: 1, max: 3650, fallbackOnInvalid: true })),
  VULN_SLA_DAYS_MEDIUM: key(p.int(90, { min: 1, max: 3650, fallbackOnInvalid: true })),
  VULN_SLA_DAYS_LOW: key(p.int(180, { min: 1, max: 3650, fallbackOnInvalid: true })),
  /** The daily SLA sweep (marking breaches, which alert once each); only false, 0 or no turn it off. */
  VULN_SLA_ALERTS_ENABLED: key(p.optOut()),

  // WebSocket and scan logs
  WEBSOCKET_MAX_CONNECTIONS_PER_USER: key(p.int(8, { min: 1, max: 1000 })),
  WEBSOCKET_MAX_CONNECTIONS_GLOBAL: key(p.int(500, { min: 1, max: 100000 })),
  WEBSOCKET_AUTH_TIMEOUT_SECONDS: key(p.num(1.0, { min: 0.1, max: 60 })),
  SCAN_LOG_LINE_MAX_LEN: key(p.int(2000, { min: 1, max: 100000 })),
  SCAN_LOG_MAX_LINES_PER_SCAN: key(p.int(20000, { min: 0, max: 10000000 })),

  // Scans (docs/scans.md). The spec leaves the per-team cap, the disk limits, retries, leases and the artefact
  // store to the deployment: these are our keys, with our defaults.
  /** Queued plus running scans a team may have at once; past it a new scan is refused (429, batch rows rate_limited). */
  SCAN_MAX_CONCURRENT_PER_TEAM: key(p.int(20, { min: 1, max: 10000 })),
  SCAN_RETENTION_SUPERSEDED_GRACE_DAYS: key(p.int(7, { min: 0, max: 3650 })),
  SCAN_RETENTION_KEEP_LAST: key(p.int(30, { min: 0, max: 100000 })),
  /** 0: no age ceiling. */
  SCAN_RETENTION_MAX_AGE_DAYS: key(p.int(180, { min: 0, max: 36500 })),
  /** Runs of one scan at most: the first plus retries (a retryable failure or a lost worker each use one). */
  SCAN_JOB_MAX_ATTEMPTS: key(p.int(3, { min: 1, max: 4 })),
  /** Back-off before retry 1, 2, 3 (one retry topic each); the last value repeats when fewer are given. */
  SCAN_JOB_RETRY_DELAYS_SECONDS: key((raw, env) => {
    const delays = p.intList([30, 120, 600], { min: 1 })(raw, env);
    if (delays.length > 3) throw new Error("must list at most 3 values (one per retry topic)");
    if (delays.some((d) => d > 86400)) throw new Error("values above 86400 are rejected");
    return delays;
  }),
  /** A running attempt that sends no progress for this long has lost its worker and is published again. */
  SCAN_LEASE_SECONDS: key(p.int(180, { min: 30, max: 3600 })),
  /** New scans are refused (503 disk-pressure) once the artefact volume's used share reaches this percentage, */
  DISK_PRESSURE_HARD_LIMIT_PERCENT: key(p.int(95, { min: 50, max: 100 })),
  /** or once its free space falls below this many bytes. */
  DISK_PRESSURE_MIN_FREE_BYTES: key(p.int(1024 ** 3, { min: 0, max: 1024 ** 5 })),
  /**
   * Where the directory artefact store keeps uploads and scan artefacts: an absolute path shared by the gateway,
   * scan-orchestrator and scanner-runner. Default: artefacts/ under the data directory ($SCA_DATA_DIR, else the
   * checkout's .data/).
   */
  ARTEFACT_DIR: key((raw, env) => {
    const dir =
      raw ?? `${env.SCA_DATA_DIR?.trim() || fileURLToPath(new URL("../../../.data", import.meta.url))}/artefacts`;
    if (!isAbsolute(dir)) throw new Error("must be an absolute path (every service must name the same directory)");
    return normalize(dir);
  }),
  /**
   * Which artefact store every process uses (docs/scans.md, "Artefact store"): `directory` (ARTEFACT_DIR, a volume
   * shared by the pods) or `s3` (a bucket of an S3-compatible server: the ARTEFACT_S3_* keys).
   */
  ARTEFACT_BACKEND: key(p.oneOf(["directory", "s3"] as const, "directory", { caseInsensitive: true })),
  /** The S3 endpoint URL; empty: AWS's own for ARTEFACT_S3_REGION. */
  ARTEFACT_S3_ENDPOINT: key((raw) => {
    if (raw === undefined) return undefined;
    const u = (() => {
      try {
        return new URL(raw);
      } catch {
        throw new Error("must be an http:// or https:// URL");
      }
    })();
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("must be an http:// or https:// URL");
    if (u.username || u.password)
      throw new Error("must not hold credentials (ARTEFACT_S3_ACCESS_KEY_ID/_SECRET_ACCESS_KEY)");
    return raw;
  }),
  /** The bucket (it must exist); required with ARTEFACT_BACKEND=s3. */
  ARTEFACT_S3_BUCKET: key((raw, env) => {
    if (raw === undefined) {
      if (env.ARTEFACT_BACKEND?.trim().toLowerCase() === "s3") throw new Error("is required with ARTEFACT_BACKEND=s3");
      return "";
    }
    // S3's bucket naming rules.
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(raw))
      throw new Error("must be a bucket name (3 to 63 of a-z 0-9 . -)");
    return raw;
  }),
  ARTEFACT_S3_REGION: key(p.text("us-east-1")),
  /** Static credentials; both empty: the SDK's default chain (web identity in a pod, instance role, ...). */
  ARTEFACT_S3_ACCESS_KEY_ID: key(p.optionalText(), true),
  ARTEFACT_S3_SECRET_ACCESS_KEY: key((raw, env) => {
    if ((raw === undefined) !== !env.ARTEFACT_S3_ACCESS_KEY_ID?.trim())
      throw new Error("must be set together with ARTEFACT_S3_ACCESS_KEY_ID, or both left empty");
    return raw;
  }, true),
  /** Path-style requests (endpoint/bucket/key): what MinIO, Ceph RGW and most self-hosted servers need. */
  ARTEFACT_S3_FORCE_PATH_STYLE: key(p.bool(false)),
  /**
   * The bucket's share for this deployment in bytes, read by the disk-pressure check as the store's size (used: the
   * bytes of its objects). 0: none, and a bucket without a quota is never under disk pressure.
   */
  ARTEFACT_S3_QUOTA_BYTES: key(p.int(0, { min: 0, max: 1024 ** 5 })),
  /** Largest SBOM accepted at upload (413 past it): scanner-runner's reader cap (SBOM_MAX_BYTES, 50 MiB). */
  SBOM_UPLOAD_MAX_BYTES: key(p.int(50 * 1024 ** 2, { min: 1024, max: 50 * 1024 ** 2, clamp: true })),
  /** Largest source archive accepted at upload (413 past it). */
  SOURCE_ARCHIVE_MAX_BYTES: key(p.int(512 * 1024 ** 2, { min: 1024 ** 2, max: 10 * 1024 ** 3, clamp: true })),
  /** An SBOM upload or source archive no scan has named within this many hours is deleted. */
  ARTEFACT_UPLOAD_TTL_HOURS: key(p.int(24, { min: 1, max: 720 })),
  /** GET /v1/external-packages and /v1/external-advisories/{id}; false answers 404 (docs/findings.md). */
  EXTERNAL_PACKAGE_LOOKUP_ENABLED: key(p.bool(true)),
  /** Per-row JSON ceiling (a component's raw_data) before truncation; bounds of our own: 1 KiB to 16 MiB. */
  /** Memory for the component list pages projects keeps, per instance (docs/inventory.md); 0 keeps none. */
  COMPONENT_PAGE_CACHE_MB: key(p.int(64, { min: 0, max: 4096 })),
  JSONB_ROW_SIZE_LIMIT_BYTES: key(p.int(262144, { min: 1024, max: 16 * 1024 ** 2 })),

  // Scanner-runner (docs/scanner-runner.md). Each instance has a slot budget per lane: a slot is one job at a time.
  /** The spec's worker slots, read as the manual lane's: jobs people asked for, run at once per instance. */
  TASK_WORKER_CONCURRENCY: key(p.int(2, { min: 1, max: 64 })),
  /** Our key: the automatic lane's slots per instance (webhook and scheduled scans); 0 leaves that lane to others. */
  TASK_WORKER_AUTOMATIC_CONCURRENCY: key(p.int(1, { min: 0, max: 64 })),
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
  /** A tree with more files than this skips the stage. */
  SCANCODE_MAX_FILES: key(p.int(20_000, { min: 1, max: 10_000_000 })),
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
  /** The most bytes an image may download: its config and compressed layers together. */
  SCAN_IMAGE_MAX_BYTES: key(p.int(4 * 1024 ** 3, { min: 1024 ** 2, max: 50 * 1024 ** 3 })),
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
  MALICIOUS_WAIVE_MAX_DAYS: key(p.int(30, { min: 1, max: 3650 })),
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

  // Audit log (docs/audit.md)
  /** Where the audit log is shipped in batches (POST, JSON); empty: not shipped. May carry a credential: secret. */
  AUDIT_EXPORT_URL: key(p.httpUrl(""), true),
  AUDIT_EXPORT_BATCH_SIZE: key(p.int(500, { min: 1, max: 5000, clamp: true })),
  AUDIT_EXPORT_LAG_SECONDS: key(p.int(30, { min: 0, max: 3600, clamp: true })),
} as const;

type Underscored<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}_${Underscored<Tail>}` : S;

/** IDENTITY_RPC_URL for "identity", SCAN_ORCHESTRATOR_RPC_URL for "scan-orchestrator". */
export type ServiceAddressKey<S extends string> = `${Uppercase<Underscored<S>>}_RPC_URL`;

/** The key holding a service's Connect address, e.g. IDENTITY_RPC_URL. */
export function serviceAddressKey<S extends string>(service: S): ServiceAddressKey<S> {
  return `${service.toUpperCase().replaceAll("-", "_")}_RPC_URL` as ServiceAddressKey<S>;
}

/** The key of a service's Connect address with its single-machine default (http://127.0.0.1:<its port>). */
export function serviceAddressKeys<S extends string>(
  service: S,
  defaultPort: number,
): Record<ServiceAddressKey<S>, KeySpec<string>> {
  return { [serviceAddressKey(service)]: key(p.text(`http://127.0.0.1:${defaultPort}`)) } as Record<
    ServiceAddressKey<S>,
    KeySpec<string>
  >;
}

/** The keys of the artefact store, for every process that reads or writes artefacts (openArtefactStore takes them). */
export const artefactStoreKeys = {
  ARTEFACT_BACKEND: keys.ARTEFACT_BACKEND,
  ARTEFACT_DIR: keys.ARTEFACT_DIR,
  ARTEFACT_S3_ENDPOINT: keys.ARTEFACT_S3_ENDPOINT,
  ARTEFACT_S3_BUCKET: keys.ARTEFACT_S3_BUCKET,
  ARTEFACT_S3_REGION: keys.ARTEFACT_S3_REGION,
  ARTEFACT_S3_ACCESS_KEY_ID: keys.ARTEFACT_S3_ACCESS_KEY_ID,
  ARTEFACT_S3_SECRET_ACCESS_KEY: keys.ARTEFACT_S3_SECRET_ACCESS_KEY,
  ARTEFACT_S3_FORCE_PATH_STYLE: keys.ARTEFACT_S3_FORCE_PATH_STYLE,
  ARTEFACT_S3_QUOTA_BYTES: keys.ARTEFACT_S3_QUOTA_BYTES,
};
