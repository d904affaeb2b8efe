// The keys the gateway reads, parsed once at start-up (service.ts): its own, the shared ones it uses (@sca/config)
// and the address of every domain service.
import {
  artefactStoreKeys,
  key,
  keys,
  parse as p,
  serviceAddressKey,
  serviceAddressKeys,
  type ConfigOf,
  type KeySpec,
  type ServiceAddressKey,
} from "@sca/config";
import { SERVICES, type ServiceName } from "@sca/runtime/services";
import { isAbsolute, normalize } from "node:path";
import { fileURLToPath } from "node:url";

/** <SERVICE>_RPC_URL of every domain service: where the gateway's clients and its readiness check reach it. */
const serviceAddresses = Object.assign(
  {},
  ...(Object.keys(SERVICES) as ServiceName[]).map((name) => serviceAddressKeys(name, SERVICES[name])),
) as Record<ServiceAddressKey<ServiceName>, KeySpec<string>>;

export const gatewayKeys = {
  APP_ENV: keys.APP_ENV,
  LOG_LEVEL: keys.LOG_LEVEL,
  /** Verifies the caller tokens identity signs (ADR 0002). */
  SECRET_KEY: keys.SECRET_KEY,
  DOMAIN: keys.DOMAIN,
  HTTP_PORT: key(p.int(8080, { min: 1, max: 65535 })),
  /**
   * Reverse proxies in front of the gateway whose X-Forwarded-For is believed (1 behind one ingress): per-IP limits
   * key on the client address.
   */
  TRUST_PROXY_HOPS: key(p.int(0, { min: 0, max: 10 })),
  REDIS_URL: keys.REDIS_URL,
  /** Memory for the component list pages the gateway keeps, per instance (ADR 12); 0 keeps none. */
  COMPONENT_PAGE_CACHE_MB: key(p.int(64, { min: 0, max: 4096 })),
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
  /** A read-only demo: every POST, PUT, PATCH and DELETE outside the authentication routes answers a 403 problem of
   * type demo_read_only; GET /health reports the flag. */
  DEMO_READ_ONLY: key(p.bool(false)),
  DEMO_ALLOW_SANDBOX_SCANS: key(p.bool(false)),
  /** Ours: the demo's sandbox project, whose source scans DEMO_ALLOW_SANDBOX_SCANS lets through (docs/gateway.md). */
  DEMO_SANDBOX_PROJECT_ID: key(p.text("")),
  /** Ours: sandbox scan requests, all visitors together (docs/gateway.md, "Demo read-only"). */
  DEMO_SANDBOX_SCAN_RATE_LIMIT: key(p.rate("6/hour")),
  METRICS_ENABLED: keys.METRICS_ENABLED,
  METRICS_TOKEN: keys.METRICS_TOKEN,
  METRICS_PORT: keys.METRICS_PORT,
  OTEL_EXPORTER_OTLP_ENDPOINT: keys.OTEL_EXPORTER_OTLP_ENDPOINT,
  /** The queue-backlog series of /metrics, read from Kafka's consumer lag (docs/operations.md); needs METRICS_ENABLED. */
  QUEUE_BACKLOG_METRICS_ENABLED: key(p.bool(false)),
  /** /ws/scans/{scan_id} (src/ws/scan-progress.ts): the caps, the auth deadline, the log bounds, the scan events it reads. */
  WEBSOCKET_MAX_CONNECTIONS_PER_USER: key(p.int(8, { min: 1, max: 1000 })),
  WEBSOCKET_MAX_CONNECTIONS_GLOBAL: key(p.int(500, { min: 1, max: 100000 })),
  WEBSOCKET_AUTH_TIMEOUT_SECONDS: key(p.num(1.0, { min: 0.1, max: 60 })),
  SCAN_LOG_LINE_MAX_LEN: keys.SCAN_LOG_LINE_MAX_LEN,
  SCAN_LOG_MAX_LINES_PER_SCAN: keys.SCAN_LOG_MAX_LINES_PER_SCAN,
  KAFKA_BROKERS: keys.KAFKA_BROKERS,
  KAFKA_TOPIC_PREFIX: keys.KAFKA_TOPIC_PREFIX,
  KAFKA_FETCH_MAX_WAIT_MS: keys.KAFKA_FETCH_MAX_WAIT_MS,
  /** Per-client-address limits of the anonymous account routes (routes/identity/registration.ts, sessions.ts, passwords.ts). */
  REGISTRATION_RATE_LIMIT: key(p.rate("5/minute")),
  PASSWORD_RESET_RATE_LIMIT: key(p.rate("5/minute")),
  PASSWORD_RESET_CONFIRM_RATE_LIMIT: key(p.rate("5/minute")),
  REFRESH_RATE_LIMIT: key(p.rate("30/minute")),
  /** The team (group) search per user: GET /v1/admin/teams with `search` (routes/identity/admin-teams.ts). */
  GROUP_SEARCH_RATE_LIMIT: key(p.rate("20/minute")),
  /** The dashboards' one bucket per actor (user or API key), shared by every dashboard route (routes/projects/dashboards.ts). */
  DASHBOARD_RATE_LIMIT: key(p.rate("120/minute")),
  /** Web UI crash reports a caller may send (routes/admin/crash-reports.ts); ours, the spec names no value. */
  CRASH_REPORT_RATE_LIMIT: key(p.rate("10/minute")),
  /** Repository webhooks (routes/scm/webhook-intake.ts): the body cap and the per-client-address limit. */
  WEBHOOK_MAX_BODY_BYTES: keys.WEBHOOK_MAX_BODY_BYTES,
  WEBHOOK_RATE_LIMIT: keys.WEBHOOK_RATE_LIMIT,
  /** Per-client-address limit of starting an OAuth sign-in (routes/identity/oauth.ts). */
  OAUTH_AUTHORIZE_RATE_LIMIT: key(p.rate("20/minute")),
  /** Uploads (routes/scans/uploads.ts) stream into the artefact store the scan-orchestrator and the workers share. */
  ...artefactStoreKeys,
  /** Largest SBOM accepted at upload (413 past it): scanner-runner's reader cap (SBOM_MAX_BYTES, 50 MiB). */
  SBOM_UPLOAD_MAX_BYTES: key(p.int(50 * 1024 ** 2, { min: 1024, max: 50 * 1024 ** 2, clamp: true })),
  SOURCE_ARCHIVE_MAX_BYTES: keys.SOURCE_ARCHIVE_MAX_BYTES,
  /** Largest SBOM signing download, the bundle zip's SBOM included (413 past it); ours, as the spec names none. */
  SIGNING_DOWNLOAD_MAX_BYTES: key(p.int(100 * 1024 ** 2, { min: 1024, max: 1024 ** 3 })),
  // The About page (routes/edge/about.ts): the build's identity and where its license notices were generated.
  SERVICE_VERSION: keys.SERVICE_VERSION,
  SERVICE_COMMIT: keys.SERVICE_COMMIT,
  SERVICE_BUILT_AT: keys.SERVICE_BUILT_AT,
  /**
   * The license notices scripts/license-notices.ts generated (index.json and one text per notice); default:
   * notices/ under the data directory ($SCA_DATA_DIR, else the checkout's .data/), where the set-up writes them.
   */
  NOTICES_DIR: key((raw, env) => {
    const dir =
      raw ?? `${env.SCA_DATA_DIR?.trim() || fileURLToPath(new URL("../../../.data", import.meta.url))}/notices`;
    if (!isAbsolute(dir)) throw new Error("must be an absolute path");
    return normalize(dir);
  }),
  /** Largest backup archive a restore accepts (413 past it); ours, as the spec names none: 64 GiB. */
  BACKUP_RESTORE_MAX_BYTES: key(p.int(64 * 1024 ** 3, { min: 1024 ** 2, max: 1024 ** 4 })),
  // Uploaded image archives (docs/container-scans.md): the cap of an image pull.
  SCAN_IMAGE_MAX_BYTES: keys.SCAN_IMAGE_MAX_BYTES,
  ...serviceAddresses,
};

export type GatewayConfig = ConfigOf<typeof gatewayKeys>;

/**
 * `{base_url}` of problem type URIs: https://DOMAIN. Type URIs are identifiers, not links, so they stay the same
 * whichever way TLS is terminated and whatever port a local run listens on.
 */
export function problemBaseUrl(config: Pick<GatewayConfig, "DOMAIN">): string {
  return `https://${config.DOMAIN}`;
}

/** Where the domain service's Connect server is, as configured. */
export function serviceUrlOf(config: GatewayConfig, service: ServiceName): string {
  return config[serviceAddressKey(service)];
}
