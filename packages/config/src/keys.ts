// The keys more than one process reads, with the spec's defaults, bounds and clamps: the deployment's (every process
// or every domain service) and the limits two services share. A key one service alone reads is declared by that
// service (services/<name>/src/config.ts), and each service's definition lists every key it loads.
import { isAbsolute, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import type { KeySpec } from "./load.ts";
import * as p from "./parse.ts";

/** A key's parser, and whether its value is a secret (never printed, not even in an error line). */
export const key = <T>(parse: p.Parser<T>, secret = false): KeySpec<T> => ({ parse, secret });

const appEnv = p.oneOf(["dev", "staging", "prod"] as const, "dev");
// Kafka's topic characters; short enough that the longest name with ".dlq" stays within the broker's 249.
const TOPIC_PREFIX = "^[A-Za-z0-9._-]{0,100}$";
// S3's bucket naming rules.
const BUCKET = "^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$";

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
  /**
   * `migrate` only: an administrator's DSN (CREATEROLE, CREATE on the database) with which it first makes the role
   * DATABASE_URL names the owner of the service's schema (docs/deploy.md, "A database role per service"); empty:
   * DATABASE_URL's role makes the schema itself.
   */
  DATABASE_ADMIN_URL: key(p.text(""), true),
  REDIS_URL: key(p.text("redis://127.0.0.1:6379"), true),
  KAFKA_BROKERS: key(p.list(["127.0.0.1:9092"])),
  /** Put before every topic name on the broker (as Hyades' KAFKA_TOPIC_PREFIX), so deployments can share a cluster. */
  KAFKA_TOPIC_PREFIX: key(
    p.described({ type: "text", pattern: TOPIC_PREFIX }, (raw) => {
      const prefix = raw ?? "";
      if (!new RegExp(TOPIC_PREFIX).test(prefix))
        throw new Error("must be at most 100 of the characters A-Z a-z 0-9 . _ -");
      return prefix;
    }),
  ),
  /**
   * How long a consumer's fetch waits on the broker for records: kafkajs's 5 s by default. A consumer stops only
   * after its fetch in flight returns; the test kit shortens it so that stopping hundreds of services is quick.
   */
  KAFKA_FETCH_MAX_WAIT_MS: key(p.int(5000, { min: 10, max: 30_000 })),
  /** The portal's host name: the gateway's problem type URIs, identity's default OAuth callback base. */
  DOMAIN: key(p.text("localhost")),
  /** Unset: the service's default port; 0: any free port (tests). */
  RPC_PORT: key(p.int(-1, { min: 0, max: 65535 })),
  /** The address a domain service's Connect server binds (0.0.0.0 in a pod; loopback on one machine). */
  RPC_HOST: key(p.text("127.0.0.1")),
  // The largest request a service reads. 64 MiB: RecordScanMatches carries one verdict per distinct package version
  // of an inventory, and an SBOM at SBOM_MAX_BYTES (50 MiB, ~60,000 components) made 5 MB at 50,000 (4 MiB refused it).
  RPC_READ_MAX_BYTES: key(p.int(64 * 1024 * 1024, { min: 1024, max: 256 * 1024 * 1024 })),
  /** Prometheus metrics of every process (docs/deploy.md, "Metrics"). */
  METRICS_ENABLED: key(p.bool(false)),
  /** When set, the bearer a scrape of /metrics must carry; otherwise /metrics answers 404. */
  METRICS_TOKEN: key(p.text(""), true),
  /**
   * Ours: a port of its own for /metrics, so a deployment's ingress never routes to it (docs/gateway.md). Unset: the
   * gateway serves it on HTTP_PORT as the spec shows it, a domain service not at all; 0: any free port.
   */
  METRICS_PORT: key(p.int(-1, { min: 0, max: 65535 })),
  /**
   * OpenTelemetry trace export (docs/deploy.md, "Traces"): the OTLP/HTTP collector's base URL (spans go to
   * <endpoint>/v1/traces); empty: no tracing.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: key((raw) => {
    if (!raw) return "";
    if (!/^https?:\/\/[^/\s]+/.test(raw)) throw new Error("must be an http:// or https:// URL");
    return raw;
  }),
  SERVICE_VERSION: key(p.text("unknown")),
  SERVICE_COMMIT: key(p.text("unknown")),
  SERVICE_BUILT_AT: key(p.text("unknown")),

  // Limits two services share
  /** Identity's reset e-mails link there; the notifier sends them. */
  PASSWORD_RESET_BASE_URL: key(p.text("http://127.0.0.1:8080/reset-password")),
  /** Per-row JSON ceiling (a component's raw_data) before truncation; bounds of our own: 1 KiB to 16 MiB. */
  JSONB_ROW_SIZE_LIMIT_BYTES: key(p.int(262144, { min: 1024, max: 16 * 1024 ** 2 })),
  /** A running attempt that sends no progress for this long has lost its worker and is published again. */
  SCAN_LEASE_SECONDS: key(p.int(180, { min: 30, max: 3600 })),
  /** The scan log as the scanner-runner keeps it and the gateway's scan WebSocket sends it. */
  SCAN_LOG_LINE_MAX_LEN: key(p.int(2000, { min: 1, max: 100000 })),
  SCAN_LOG_MAX_LINES_PER_SCAN: key(p.int(20000, { min: 0, max: 10000000 })),
  /** The SMTP relay: the notifier sends through it, admin's health panel probes it. Empty: no e-mail channel. */
  SMTP_HOST: key(p.text("")),
  SMTP_PORT: key(p.int(587, { min: 1, max: 65535 })),
  /**
   * The artefact volume's disk limits: the scan-orchestrator refuses new scans (503 disk-pressure) once its used
   * share reaches the percentage or its free space falls below the bytes; admin's disk panel shows both.
   */
  DISK_PRESSURE_HARD_LIMIT_PERCENT: key(p.int(95, { min: 50, max: 100 })),
  DISK_PRESSURE_MIN_FREE_BYTES: key(p.int(1024 ** 3, { min: 0, max: 1024 ** 5 })),
  /** Largest source archive accepted at upload (413 past it). */
  SOURCE_ARCHIVE_MAX_BYTES: key(p.int(512 * 1024 ** 2, { min: 1024 ** 2, max: 10 * 1024 ** 3, clamp: true })),
  /** The most bytes an image may download: its config and compressed layers together. */
  SCAN_IMAGE_MAX_BYTES: key(p.int(4 * 1024 ** 3, { min: 1024 ** 2, max: 50 * 1024 ** 3 })),

  // The artefact store of the gateway, projects, the scan-orchestrator and the scanner-runner (artefactStoreKeys).
  /**
   * Where the directory artefact store keeps uploads and scan artefacts: an absolute path shared by the gateway,
   * scan-orchestrator and scanner-runner. Default: artefacts/ under the data directory ($SCA_DATA_DIR, else the
   * checkout's .data/).
   */
  ARTEFACT_DIR: key(
    p.described({ type: "text", pattern: "^/", summary: "an absolute path" }, (raw, env) => {
      const dir =
        raw ?? `${env.SCA_DATA_DIR?.trim() || fileURLToPath(new URL("../../../.data", import.meta.url))}/artefacts`;
      if (!isAbsolute(dir)) throw new Error("must be an absolute path (every service must name the same directory)");
      return normalize(dir);
    }),
  ),
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
  ARTEFACT_S3_BUCKET: key(
    p.described({ type: "text", pattern: BUCKET }, (raw, env) => {
      if (raw === undefined) {
        if (env.ARTEFACT_BACKEND?.trim().toLowerCase() === "s3")
          throw new Error("is required with ARTEFACT_BACKEND=s3");
        return "";
      }
      if (!new RegExp(BUCKET).test(raw)) throw new Error("must be a bucket name (3 to 63 of a-z 0-9 . -)");
      return raw;
    }),
  ),
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

  // The repository-webhook intake's (the gateway's; docs/scm.md).
  WEBHOOK_MAX_BODY_BYTES: key(p.int(2097152, { min: 65536, max: 26214400, clamp: true })),
  WEBHOOK_RATE_LIMIT: key(p.rate("120/minute")),
  // A key of the spec no service reads yet (malicious-package waivers): the service that comes to read it declares
  // it instead.
  MALICIOUS_WAIVE_MAX_DAYS: key(p.int(30, { min: 1, max: 3650 })),
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
