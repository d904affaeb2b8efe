// The configuration keys the gateway reads, parsed once at start-up (service.ts).
import {
  artefactStoreKeys,
  keys,
  serviceAddressKey,
  serviceAddressKeys,
  type ConfigOf,
  type KeySpec,
  type ServiceAddressKey,
} from "@sca/config";
import { SERVICES, type ServiceName } from "@sca/runtime/services";

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
  HTTP_PORT: keys.HTTP_PORT,
  /** Per-IP limits key on the client address; behind an ingress it comes from X-Forwarded-For. */
  TRUST_PROXY_HOPS: keys.TRUST_PROXY_HOPS,
  REDIS_URL: keys.REDIS_URL,
  CORS_ALLOWED_ORIGINS: keys.CORS_ALLOWED_ORIGINS,
  DEMO_READ_ONLY: keys.DEMO_READ_ONLY,
  DEMO_ALLOW_SANDBOX_SCANS: keys.DEMO_ALLOW_SANDBOX_SCANS,
  METRICS_ENABLED: keys.METRICS_ENABLED,
  METRICS_TOKEN: keys.METRICS_TOKEN,
  /** /ws/scans/{scan_id} (src/ws/scan-progress.ts): the caps, the auth deadline, the log bounds, the scan events it reads. */
  WEBSOCKET_MAX_CONNECTIONS_PER_USER: keys.WEBSOCKET_MAX_CONNECTIONS_PER_USER,
  WEBSOCKET_MAX_CONNECTIONS_GLOBAL: keys.WEBSOCKET_MAX_CONNECTIONS_GLOBAL,
  WEBSOCKET_AUTH_TIMEOUT_SECONDS: keys.WEBSOCKET_AUTH_TIMEOUT_SECONDS,
  SCAN_LOG_LINE_MAX_LEN: keys.SCAN_LOG_LINE_MAX_LEN,
  SCAN_LOG_MAX_LINES_PER_SCAN: keys.SCAN_LOG_MAX_LINES_PER_SCAN,
  KAFKA_BROKERS: keys.KAFKA_BROKERS,
  KAFKA_TOPIC_PREFIX: keys.KAFKA_TOPIC_PREFIX,
  KAFKA_FETCH_MAX_WAIT_MS: keys.KAFKA_FETCH_MAX_WAIT_MS,
  /** Per-client-address limits of the anonymous account routes (routes/identity/registration.ts, sessions.ts, passwords.ts). */
  REGISTRATION_RATE_LIMIT: keys.REGISTRATION_RATE_LIMIT,
  PASSWORD_RESET_RATE_LIMIT: keys.PASSWORD_RESET_RATE_LIMIT,
  PASSWORD_RESET_CONFIRM_RATE_LIMIT: keys.PASSWORD_RESET_CONFIRM_RATE_LIMIT,
  REFRESH_RATE_LIMIT: keys.REFRESH_RATE_LIMIT,
  /** Per-client-address limit of starting an OAuth sign-in (routes/identity/oauth.ts). */
  OAUTH_AUTHORIZE_RATE_LIMIT: keys.OAUTH_AUTHORIZE_RATE_LIMIT,
  /** Uploads (routes/scans/uploads.ts) stream into the artefact store the scan-orchestrator and the workers share. */
  ...artefactStoreKeys,
  SBOM_UPLOAD_MAX_BYTES: keys.SBOM_UPLOAD_MAX_BYTES,
  SOURCE_ARCHIVE_MAX_BYTES: keys.SOURCE_ARCHIVE_MAX_BYTES,
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
