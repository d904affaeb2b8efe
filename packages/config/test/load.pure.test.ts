import { describe, expect, it } from "@jest/globals";
import { ConfigError, keys, loadConfig } from "@sca/config";

const load = <K extends keyof typeof keys>(names: K[], env: Record<string, string>) =>
  loadConfig(Object.fromEntries(names.map((n) => [n, keys[n]])) as Pick<typeof keys, K>, env);

describe("configuration keys", () => {
  it("applies the spec's defaults", () => {
    const c = load(
      [
        "ACCESS_TOKEN_EXPIRE_MINUTES",
        "REFRESH_TOKEN_EXPIRE_DAYS",
        "LOGIN_THROTTLE_WINDOWS",
        "WEBHOOK_MAX_BODY_BYTES",
        "LOGIN_THROTTLE_FAILURES",
        "WEBSOCKET_AUTH_TIMEOUT_SECONDS",
        "AUTH_SELF_REGISTRATION",
        "METRICS_ENABLED",
        "APP_ENV",
        "LOG_LEVEL",
      ],
      {},
    );
    expect(c).toEqual({
      ACCESS_TOKEN_EXPIRE_MINUTES: 30,
      REFRESH_TOKEN_EXPIRE_DAYS: 7,
      LOGIN_THROTTLE_WINDOWS: [60, 300, 900, 1800],
      WEBHOOK_MAX_BODY_BYTES: 2097152,
      LOGIN_THROTTLE_FAILURES: 10,
      WEBSOCKET_AUTH_TIMEOUT_SECONDS: 1,
      AUTH_SELF_REGISTRATION: true,
      METRICS_ENABLED: false,
      APP_ENV: "dev",
      LOG_LEVEL: "INFO",
    });
  });

  it("clamps WEBHOOK_MAX_BODY_BYTES into 65536..26214400", () => {
    expect(load(["WEBHOOK_MAX_BODY_BYTES"], { WEBHOOK_MAX_BODY_BYTES: "10" }).WEBHOOK_MAX_BODY_BYTES).toBe(65536);
    expect(load(["WEBHOOK_MAX_BODY_BYTES"], { WEBHOOK_MAX_BODY_BYTES: "999999999" }).WEBHOOK_MAX_BODY_BYTES).toBe(
      26214400,
    );
    expect(load(["WEBHOOK_MAX_BODY_BYTES"], { WEBHOOK_MAX_BODY_BYTES: "100000" }).WEBHOOK_MAX_BODY_BYTES).toBe(100000);
  });

  it("rejects LOGIN_THROTTLE_WINDOWS values below 1, naming the key", () => {
    expect(() => load(["LOGIN_THROTTLE_WINDOWS"], { LOGIN_THROTTLE_WINDOWS: "60,0,900" })).toThrow(ConfigError);
    expect(() => load(["LOGIN_THROTTLE_WINDOWS"], { LOGIN_THROTTLE_WINDOWS: "60,0,900" })).toThrow(
      /^configuration error: LOGIN_THROTTLE_WINDOWS values below 1 are rejected$/,
    );
    expect(load(["LOGIN_THROTTLE_WINDOWS"], { LOGIN_THROTTLE_WINDOWS: "5, 10" }).LOGIN_THROTTLE_WINDOWS).toEqual([
      5, 10,
    ]);
  });

  it("gives the scan keys their documented defaults (docs/scans.md)", () => {
    const c = load(
      [
        "SCAN_MAX_CONCURRENT_PER_TEAM",
        "SCAN_RETENTION_SUPERSEDED_GRACE_DAYS",
        "SCAN_RETENTION_KEEP_LAST",
        "SCAN_RETENTION_MAX_AGE_DAYS",
        "SCAN_JOB_MAX_ATTEMPTS",
        "SCAN_JOB_RETRY_DELAYS_SECONDS",
        "SCAN_LEASE_SECONDS",
        "DISK_PRESSURE_HARD_LIMIT_PERCENT",
        "DISK_PRESSURE_MIN_FREE_BYTES",
        "SOURCE_ARCHIVE_MAX_BYTES",
        "ARTEFACT_UPLOAD_TTL_HOURS",
      ],
      {},
    );
    expect(c).toEqual({
      SCAN_MAX_CONCURRENT_PER_TEAM: 20,
      SCAN_RETENTION_SUPERSEDED_GRACE_DAYS: 7,
      SCAN_RETENTION_KEEP_LAST: 30,
      SCAN_RETENTION_MAX_AGE_DAYS: 180,
      SCAN_JOB_MAX_ATTEMPTS: 3,
      SCAN_JOB_RETRY_DELAYS_SECONDS: [30, 120, 600],
      SCAN_LEASE_SECONDS: 180,
      DISK_PRESSURE_HARD_LIMIT_PERCENT: 95,
      DISK_PRESSURE_MIN_FREE_BYTES: 1073741824,
      SOURCE_ARCHIVE_MAX_BYTES: 536870912,
      ARTEFACT_UPLOAD_TTL_HOURS: 24,
    });
  });

  it("takes at most three retry delays, one per retry topic", () => {
    expect(
      load(["SCAN_JOB_RETRY_DELAYS_SECONDS"], { SCAN_JOB_RETRY_DELAYS_SECONDS: "5" }).SCAN_JOB_RETRY_DELAYS_SECONDS,
    ).toEqual([5]);
    expect(() => load(["SCAN_JOB_RETRY_DELAYS_SECONDS"], { SCAN_JOB_RETRY_DELAYS_SECONDS: "1,2,3,4" })).toThrow(
      /SCAN_JOB_RETRY_DELAYS_SECONDS must list at most 3/,
    );
    expect(() => load(["SCAN_JOB_RETRY_DELAYS_SECONDS"], { SCAN_JOB_RETRY_DELAYS_SECONDS: "0" })).toThrow(
      /values below 1/,
    );
    expect(() => load(["SCAN_JOB_MAX_ATTEMPTS"], { SCAN_JOB_MAX_ATTEMPTS: "5" })).toThrow(
      /SCAN_JOB_MAX_ATTEMPTS must be between 1 and 4/,
    );
  });

  it("puts ARTEFACT_DIR under the data directory unless given, and only as an absolute path", () => {
    expect(load(["ARTEFACT_DIR"], { SCA_DATA_DIR: "/srv/sca/data" }).ARTEFACT_DIR).toBe("/srv/sca/data/artefacts");
    expect(load(["ARTEFACT_DIR"], {}).ARTEFACT_DIR).toMatch(/^\/.*\/\.data\/artefacts$/);
    expect(load(["ARTEFACT_DIR"], { ARTEFACT_DIR: "/var/lib/sca//artefacts/" }).ARTEFACT_DIR).toBe(
      "/var/lib/sca/artefacts/",
    );
    expect(() => load(["ARTEFACT_DIR"], { ARTEFACT_DIR: "data/artefacts" })).toThrow(
      /ARTEFACT_DIR must be an absolute path/,
    );
  });

  it("clamps SOURCE_ARCHIVE_MAX_BYTES into 1 MiB..10 GiB", () => {
    expect(load(["SOURCE_ARCHIVE_MAX_BYTES"], { SOURCE_ARCHIVE_MAX_BYTES: "10" }).SOURCE_ARCHIVE_MAX_BYTES).toBe(
      1048576,
    );
    expect(
      load(["SOURCE_ARCHIVE_MAX_BYTES"], { SOURCE_ARCHIVE_MAX_BYTES: String(20 * 1024 ** 3) }).SOURCE_ARCHIVE_MAX_BYTES,
    ).toBe(10 * 1024 ** 3);
  });

  it("rejects a wildcard in CORS_ALLOWED_ORIGINS and anything that is not an origin", () => {
    expect(() => load(["CORS_ALLOWED_ORIGINS"], { CORS_ALLOWED_ORIGINS: "https://a.example, *" })).toThrow(
      /CORS_ALLOWED_ORIGINS must not contain \*/,
    );
    expect(() => load(["CORS_ALLOWED_ORIGINS"], { CORS_ALLOWED_ORIGINS: "https://a.example/path" })).toThrow(
      /CORS_ALLOWED_ORIGINS/,
    );
    expect(
      load(["CORS_ALLOWED_ORIGINS"], { CORS_ALLOWED_ORIGINS: "https://a.example,http://127.0.0.1:8080" })
        .CORS_ALLOWED_ORIGINS,
    ).toEqual(["https://a.example", "http://127.0.0.1:8080"]);
  });

  it("takes a KAFKA_TOPIC_PREFIX of Kafka's topic characters, empty by default", () => {
    expect(load(["KAFKA_TOPIC_PREFIX"], {}).KAFKA_TOPIC_PREFIX).toBe("");
    expect(load(["KAFKA_TOPIC_PREFIX"], { KAFKA_TOPIC_PREFIX: "acme-prod." }).KAFKA_TOPIC_PREFIX).toBe("acme-prod.");
    expect(() => load(["KAFKA_TOPIC_PREFIX"], { KAFKA_TOPIC_PREFIX: "acme/prod" })).toThrow(
      /^configuration error: KAFKA_TOPIC_PREFIX must be/,
    );
    expect(() => load(["KAFKA_TOPIC_PREFIX"], { KAFKA_TOPIC_PREFIX: "x".repeat(101) })).toThrow(/KAFKA_TOPIC_PREFIX/);
  });

  it("requires a SECRET_KEY of at least 32 characters outside APP_ENV=dev", () => {
    expect(load(["SECRET_KEY"], { SECRET_KEY: "short" }).SECRET_KEY).toBe("short");
    expect(() => load(["SECRET_KEY"], { SECRET_KEY: "short", APP_ENV: "prod" })).toThrow(
      /SECRET_KEY must be at least 32 characters/,
    );
    expect(() => load(["SECRET_KEY"], {})).toThrow(/SECRET_KEY is required/);
    expect(load(["SECRET_KEY"], { SECRET_KEY: "x".repeat(32), APP_ENV: "staging" }).SECRET_KEY).toHaveLength(32);
  });

  it("never prints a secret value in an error", () => {
    try {
      load(["SECRET_KEY"], { SECRET_KEY: "hunter2-very-secret", APP_ENV: "prod" });
      throw new Error("expected a ConfigError");
    } catch (err) {
      expect((err as Error).message).not.toContain("hunter2");
    }
  });

  it("parses strict booleans and rejects garbage", () => {
    expect(load(["DEMO_READ_ONLY"], { DEMO_READ_ONLY: "yes" }).DEMO_READ_ONLY).toBe(true);
    expect(load(["DEMO_READ_ONLY"], { DEMO_READ_ONLY: "0" }).DEMO_READ_ONLY).toBe(false);
    expect(() => load(["DEMO_READ_ONLY"], { DEMO_READ_ONLY: "maybe" })).toThrow(/DEMO_READ_ONLY must be true or false/);
  });

  it("parses rates such as 5/minute", () => {
    expect(load(["REGISTRATION_RATE_LIMIT"], {}).REGISTRATION_RATE_LIMIT).toEqual({ limit: 5, windowSeconds: 60 });
    expect(load(["REFRESH_RATE_LIMIT"], { REFRESH_RATE_LIMIT: "100/hour" }).REFRESH_RATE_LIMIT).toEqual({
      limit: 100,
      windowSeconds: 3600,
    });
    expect(() => load(["REFRESH_RATE_LIMIT"], { REFRESH_RATE_LIMIT: "lots" })).toThrow(
      /REFRESH_RATE_LIMIT must look like 5\/minute/,
    );
  });

  it("takes the webhook keys as http(s) URLs or empty (off), never printing one in an error", () => {
    const hooks = ["SLACK_WEBHOOK_URL", "TEAMS_WEBHOOK_URL", "TICKET_WEBHOOK_URL", "AUDIT_EXPORT_URL"] as const;
    const off = load([...hooks, "TICKET_WEBHOOK_EVENTS", "NOTIFICATION_HTTP_TIMEOUT_SECONDS"], {});
    expect(off).toMatchObject({
      SLACK_WEBHOOK_URL: "",
      TEAMS_WEBHOOK_URL: "",
      TICKET_WEBHOOK_URL: "",
      AUDIT_EXPORT_URL: "",
      TICKET_WEBHOOK_EVENTS: [],
      NOTIFICATION_HTTP_TIMEOUT_SECONDS: 10,
    });
    const url = "https://hooks.example.com/services/T0/B0/xoxsecret";
    expect(load(["SLACK_WEBHOOK_URL"], { SLACK_WEBHOOK_URL: url }).SLACK_WEBHOOK_URL).toBe(url);
    expect(
      load(["TICKET_WEBHOOK_EVENTS"], { TICKET_WEBHOOK_EVENTS: "scan.failed, gate.failed" }).TICKET_WEBHOOK_EVENTS,
    ).toEqual(["scan.failed", "gate.failed"]);
    for (const key of hooks)
      try {
        load([key], { [key]: "ftp://files.example.com/xoxsecret" });
        throw new Error("expected a ConfigError");
      } catch (err) {
        expect((err as Error).message).toMatch(new RegExp(`${key} must be an http\\(s\\) URL`));
        expect((err as Error).message).not.toContain("xoxsecret");
      }
  });

  it("treats an empty value as absent", () => {
    expect(
      load(["ACCESS_TOKEN_EXPIRE_MINUTES"], { ACCESS_TOKEN_EXPIRE_MINUTES: "  " }).ACCESS_TOKEN_EXPIRE_MINUTES,
    ).toBe(30);
  });

  it("maps LOG_LEVEL case-insensitively onto the spec's names", () => {
    expect(load(["LOG_LEVEL"], { LOG_LEVEL: "warning" }).LOG_LEVEL).toBe("WARNING");
    expect(() => load(["LOG_LEVEL"], { LOG_LEVEL: "TRACE" })).toThrow(
      /LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR/,
    );
  });

  it("reads the enrichment feed keys as the spec states them", () => {
    const optIn = (v: string) => load(["EOL_REFRESH_ENABLED"], { EOL_REFRESH_ENABLED: v }).EOL_REFRESH_ENABLED;
    // Only true, 1 and yes enable the live end-of-life fetch; anything else leaves it off rather than failing.
    expect(["true", "1", "YES"].map(optIn)).toEqual([true, true, true]);
    expect(["on", "false", "maybe"].map(optIn)).toEqual([false, false, false]);
    expect(load(["EOL_REFRESH_ENABLED"], {}).EOL_REFRESH_ENABLED).toBe(false);
    const timeout = (v: string) =>
      load(["EOL_REFRESH_TIMEOUT_SECONDS"], { EOL_REFRESH_TIMEOUT_SECONDS: v }).EOL_REFRESH_TIMEOUT_SECONDS;
    expect([timeout("0"), timeout("500"), timeout("20")]).toEqual([1, 120, 20]);
    expect(
      load(
        [
          "KEV_REFRESH_ENABLED",
          "KEV_REFRESH_TIMEOUT_SECONDS",
          "MALICIOUS_WAIVE_MAX_DAYS",
          "EOL_REFRESH_TIMEOUT_SECONDS",
        ],
        {},
      ),
    ).toEqual({
      KEV_REFRESH_ENABLED: true,
      KEV_REFRESH_TIMEOUT_SECONDS: 30,
      MALICIOUS_WAIVE_MAX_DAYS: 30,
      EOL_REFRESH_TIMEOUT_SECONDS: 15,
    });
    expect(() => load(["EOL_FEED_URL_TEMPLATE"], { EOL_FEED_URL_TEMPLATE: "https://eol.example.com/api" })).toThrow(
      /must contain \{product\}/,
    );
    expect(() => load(["KEV_FEED_URL"], { KEV_FEED_URL: "ftp://example.com/kev.json" })).toThrow(/http\(s\) URL/);
  });

  it("reads the scan scope, license lookup and fingerprint keys with the spec's defaults", () => {
    expect(
      load(
        [
          "SCAN_SCOPE_FILTER_ENABLED",
          "SCAN_SCOPE_FILTER_MAVEN_ENABLED",
          "SCAN_SCOPE_FILTER_NODE_ENABLED",
          "LICENSE_FETCH_ENABLED",
          "FINGERPRINT_ENABLED",
          "FINGERPRINT_API_KEY",
          "FINGERPRINT_TIMEOUT_SECONDS",
        ],
        {},
      ),
    ).toEqual({
      SCAN_SCOPE_FILTER_ENABLED: true,
      SCAN_SCOPE_FILTER_MAVEN_ENABLED: true,
      SCAN_SCOPE_FILTER_NODE_ENABLED: true,
      LICENSE_FETCH_ENABLED: true,
      FINGERPRINT_ENABLED: false,
      FINGERPRINT_API_KEY: "",
      FINGERPRINT_TIMEOUT_SECONDS: 300,
    });
    expect(load(["FINGERPRINT_API_URL"], {}).FINGERPRINT_API_URL).toMatch(/^https:\/\//);
    expect(() => load(["FINGERPRINT_API_URL"], { FINGERPRINT_API_URL: "file:///etc/passwd" })).toThrow(/http\(s\) URL/);
  });

  it("reads the vulnerability SLA keys as the spec states them", () => {
    const days = (v: string) => load(["VULN_SLA_DAYS_HIGH"], { VULN_SLA_DAYS_HIGH: v }).VULN_SLA_DAYS_HIGH;
    // An invalid window falls back to the default rather than stopping the process.
    expect(["14", "0", "-3", "soon", "99999"].map(days)).toEqual([14, 30, 30, 30, 30]);
    expect(
      load(["VULN_SLA_DAYS_CRITICAL", "VULN_SLA_DAYS_HIGH", "VULN_SLA_DAYS_MEDIUM", "VULN_SLA_DAYS_LOW"], {}),
    ).toEqual({ VULN_SLA_DAYS_CRITICAL: 7, VULN_SLA_DAYS_HIGH: 30, VULN_SLA_DAYS_MEDIUM: 90, VULN_SLA_DAYS_LOW: 180 });
    const alerts = (v: string) =>
      load(["VULN_SLA_ALERTS_ENABLED"], { VULN_SLA_ALERTS_ENABLED: v }).VULN_SLA_ALERTS_ENABLED;
    // Only false, 0 and no turn the sweep off.
    expect(["false", "0", "NO"].map(alerts)).toEqual([false, false, false]);
    expect(["off", "true", "maybe"].map(alerts)).toEqual([true, true, true]);
    expect(load(["VULN_SLA_ALERTS_ENABLED"], {}).VULN_SLA_ALERTS_ENABLED).toBe(true);
  });
});
