import { describe, expect, it } from "@jest/globals";
import { keys, loadConfig, pickKeys } from "@sca/config";

// The shared keys; each service's own are tested with it (services/<name>/test/config.pure.test.ts).
const load = <K extends keyof typeof keys>(names: K[], env: Record<string, string>) =>
  loadConfig(pickKeys(keys, names), env);

describe("configuration keys", () => {
  it("applies the spec's defaults", () => {
    const c = load(["WEBHOOK_MAX_BODY_BYTES", "APP_ENV", "LOG_LEVEL"], {});
    expect(c).toEqual({ WEBHOOK_MAX_BODY_BYTES: 2097152, APP_ENV: "dev", LOG_LEVEL: "INFO" });
  });

  it("clamps WEBHOOK_MAX_BODY_BYTES into 65536..26214400", () => {
    expect(load(["WEBHOOK_MAX_BODY_BYTES"], { WEBHOOK_MAX_BODY_BYTES: "10" }).WEBHOOK_MAX_BODY_BYTES).toBe(65536);
    expect(load(["WEBHOOK_MAX_BODY_BYTES"], { WEBHOOK_MAX_BODY_BYTES: "999999999" }).WEBHOOK_MAX_BODY_BYTES).toBe(
      26214400,
    );
    expect(load(["WEBHOOK_MAX_BODY_BYTES"], { WEBHOOK_MAX_BODY_BYTES: "100000" }).WEBHOOK_MAX_BODY_BYTES).toBe(100000);
  });

  it("gives the shared scan keys their documented defaults (docs/scans.md)", () => {
    expect(load(["SCAN_LEASE_SECONDS", "SOURCE_ARCHIVE_MAX_BYTES"], {})).toEqual({
      SCAN_LEASE_SECONDS: 180,
      SOURCE_ARCHIVE_MAX_BYTES: 536870912,
    });
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

  it("treats an empty value as absent", () => {
    expect(load(["KAFKA_FETCH_MAX_WAIT_MS"], { KAFKA_FETCH_MAX_WAIT_MS: "  " }).KAFKA_FETCH_MAX_WAIT_MS).toBe(5000);
  });

  it("maps LOG_LEVEL case-insensitively onto the spec's names", () => {
    expect(load(["LOG_LEVEL"], { LOG_LEVEL: "warning" }).LOG_LEVEL).toBe("WARNING");
    expect(() => load(["LOG_LEVEL"], { LOG_LEVEL: "TRACE" })).toThrow(
      /LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR/,
    );
  });

  it("gives MALICIOUS_WAIVE_MAX_DAYS the spec's default", () => {
    expect(load(["MALICIOUS_WAIVE_MAX_DAYS"], {})).toEqual({ MALICIOUS_WAIVE_MAX_DAYS: 30 });
  });
});
