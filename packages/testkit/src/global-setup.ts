// Jest global set-up: name the run (its services' schema templates, schema-template.ts, carry the name) and make sure
// the three real servers are reachable before any test file runs. Without them in the environment, start them with
// testcontainers, but only where a Docker engine answers. It also builds OSV-Scanner's offline database once: four
// test files read it, and building it in each of them at once, beside the static checks, took over 30 s on CI.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { osvScannerDatabase } from "./osv-scanner-db.ts";
import { TEST_RUN_KEY } from "./schema-template.ts";

function dockerAnswers(): boolean {
  try {
    execFileSync("docker", ["info"], { stdio: "ignore", timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

export default async function globalSetup(): Promise<void> {
  // The workers inherit the environment as it is once the set-up ends.
  process.env[TEST_RUN_KEY] ??= `${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
  await osvScannerDatabase();
  const { DATABASE_URL, KAFKA_BROKERS, REDIS_URL } = process.env;
  if (DATABASE_URL && KAFKA_BROKERS && REDIS_URL) return;
  if (!dockerAnswers()) {
    throw new Error(
      "DATABASE_URL, KAFKA_BROKERS and REDIS_URL are unset and no Docker engine answers: run the tests with ./dev test",
    );
  }
  const { GenericContainer, Wait } = await import("testcontainers");
  const pg = await new GenericContainer("postgres:16-alpine")
    .withEnvironment({ POSTGRES_USER: "sca", POSTGRES_PASSWORD: "sca", POSTGRES_DB: "sca_test" })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/ready to accept connections/, 2))
    .start();
  const redis = await new GenericContainer("redis:7-alpine").withExposedPorts(6379).start();
  const kafka = await new GenericContainer("apache/kafka:4.1.0")
    .withExposedPorts({ container: 9092, host: 59192 })
    .withEnvironment({
      KAFKA_NODE_ID: "1",
      KAFKA_PROCESS_ROLES: "broker,controller",
      KAFKA_LISTENERS: "PLAINTEXT://:9092,CONTROLLER://:9093",
      KAFKA_ADVERTISED_LISTENERS: "PLAINTEXT://127.0.0.1:59192",
      KAFKA_CONTROLLER_LISTENER_NAMES: "CONTROLLER",
      KAFKA_CONTROLLER_QUORUM_VOTERS: "1@localhost:9093",
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: "1",
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: "1",
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: "1",
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: "0",
    })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .start();
  process.env.DATABASE_URL = `postgresql://sca:sca@${pg.getHost()}:${pg.getMappedPort(5432)}/sca_test`;
  process.env.REDIS_URL = `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
  process.env.KAFKA_BROKERS = `${kafka.getHost()}:59192`;
}
