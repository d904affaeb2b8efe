// /metrics: Prometheus text when METRICS_ENABLED, 404 (as an unknown path) when off or on a wrong bearer; with
// METRICS_PORT on a port of its own only.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createKafka, ensureTopics, TOPICS } from "@sca/kafka";
import { createLogger } from "@sca/log";
import { eventually, testServers, uniqueName } from "@sca/testkit";
import { problemOf, startTestGateway, type TestGateway } from "./harness.ts";

describe("metrics off (the default)", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await gw.close();
  });

  it("answers 404 exactly as an unknown path does", async () => {
    const res = await fetch(`${gw.origin}/api/metrics`);
    expect(res.status).toBe(404);
    const doc = await problemOf(res);
    const unknown = await problemOf(await fetch(`${gw.origin}/api/metrix`));
    expect({ ...doc, instance: "", detail: "" }).toEqual({ ...unknown, instance: "", detail: "" });
    expect(doc.detail).toBe("No resource at /metrics.");
  });
});

describe("metrics on, no token", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { METRICS_ENABLED: "true" } });
  });
  afterAll(async () => {
    await gw.close();
  });

  it("exposes process metrics and HTTP counts and latencies by route template", async () => {
    await fetch(`${gw.origin}/api/health`);
    await fetch(`${gw.origin}/health/`);
    await fetch(`${gw.origin}/api/v1/no/such/path/${"x".repeat(20)}`);
    const res = await fetch(`${gw.origin}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(text).toContain('http_requests_total{method="GET",route="/health",status="200"} 2');
    expect(text).toContain('http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(text).toMatch(
      /^http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/health",status="200"\} \d+/m,
    );
    // Aggregates only: no raw paths or request ids become labels.
    expect(text).not.toContain("no/such/path");
    expect(text).not.toContain("request_id");
    // The backlog series need QUEUE_BACKLOG_METRICS_ENABLED too.
    expect(text).not.toContain("sca_queue_backlog");
  });
});

describe("queue backlog series (QUEUE_BACKLOG_METRICS_ENABLED)", () => {
  // A topic prefix of its own, so the lag read is of this test's scan jobs only.
  const KAFKA_TOPIC_PREFIX = `${uniqueName("metrics_backlog")}.`;
  let gw: TestGateway;
  let down: TestGateway;
  beforeAll(async () => {
    const kafka = createKafka({
      brokers: testServers().kafkaBrokers,
      clientId: "metrics-test",
      logger: createLogger("metrics-test", "ERROR"),
      topicPrefix: KAFKA_TOPIC_PREFIX,
    });
    await ensureTopics(kafka, [TOPICS.scanJobsManual, TOPICS.scanJobsAutomatic]);
    // Idempotent, so a retry while the shared broker moves a partition's leader cannot double a job (CI once
    // counted 9 of 8).
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const jobs = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `job-${i}`, value: "{}" }));
    await producer.send({ topic: kafka.topicName(TOPICS.scanJobsManual), messages: jobs(3) });
    await producer.send({ topic: kafka.topicName(TOPICS.scanJobsAutomatic), messages: jobs(5) });
    await producer.disconnect();
    const env = { METRICS_ENABLED: "true", QUEUE_BACKLOG_METRICS_ENABLED: "true", KAFKA_TOPIC_PREFIX };
    gw = await startTestGateway({ env });
    // A closed port: Kafka does not answer.
    down = await startTestGateway({ env: { ...env, KAFKA_BROKERS: "127.0.0.1:9" } });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await down?.close();
  });

  it("exposes each scan lane's consumer lag and the scan and default queues' backlog", async () => {
    // On a loaded machine the first reading can pass its 5-s deadline (then up 0, cached 10 s): read again until
    // one succeeds, rather than depend on how fast the machine is.
    const text = await eventually(
      async () => (await fetch(`${gw.origin}/metrics`)).text(),
      (body) => /^sca_queue_backlog_up 1$/m.test(body),
      60_000,
    );
    expect(text).toContain('sca_scan_lane_lag_messages{lane="manual"} 3');
    expect(text).toContain('sca_scan_lane_lag_messages{lane="automatic"} 5');
    expect(text).toContain('sca_queue_backlog_messages{queue="scan"} 8');
    expect(text).toMatch(/^sca_queue_backlog_messages\{queue="default"\} \d+$/m);
    expect(text).toMatch(/^sca_queue_backlog_up 1$/m);
  }, 70_000);

  it("says the reading failed, with no backlog number, when Kafka does not answer", async () => {
    const text = await (await fetch(`${down.origin}/metrics`)).text();
    expect(text).toMatch(/^sca_queue_backlog_up 0$/m);
    expect(text).not.toMatch(/^sca_queue_backlog_messages\{/m);
    expect(text).not.toMatch(/^sca_scan_lane_lag_messages\{/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
  }, 20_000);
});

describe("metrics on, with METRICS_TOKEN", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { METRICS_ENABLED: "true", METRICS_TOKEN: "scrape-me-s3cret" } });
  });
  afterAll(async () => {
    await gw.close();
  });

  it("answers only the right bearer", async () => {
    const get = (authorization?: string) =>
      fetch(`${gw.origin}/api/metrics`, { headers: authorization ? { authorization } : {} });
    expect((await get()).status).toBe(404);
    expect((await get("Bearer wrong")).status).toBe(404);
    expect((await get("Bearer scrape-me-s3cre")).status).toBe(404);
    expect((await get("Basic scrape-me-s3cret")).status).toBe(404);
    expect((await get("Bearer scrape-me-s3cret")).status).toBe(200);
    expect((await get("bearer scrape-me-s3cret")).status).toBe(200);
  });
});

describe("metrics on a port of their own (METRICS_PORT)", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    // 0: any free port, as the test's HTTP port is.
    gw = await startTestGateway({
      env: { METRICS_ENABLED: "true", METRICS_TOKEN: "scrape-me-s3cret", METRICS_PORT: "0" },
    });
  });
  afterAll(async () => {
    await gw.close();
  });

  it("serves /metrics there, with the same bearer check, and no longer on the HTTP port", async () => {
    expect(gw.metricsUrl).toBeDefined();
    expect(gw.metricsUrl).not.toBe(gw.origin);
    await fetch(`${gw.origin}/api/health`);
    const scrape = (authorization?: string, path = "/metrics") =>
      fetch(`${gw.metricsUrl}${path}`, { headers: authorization ? { authorization } : {} });
    const res = await scrape("Bearer scrape-me-s3cret");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toContain('http_requests_total{method="GET",route="/health",status="200"} 1');
    expect((await scrape()).status).toBe(404);
    expect((await scrape("Bearer wrong")).status).toBe(404);
    expect((await scrape("Bearer scrape-me-s3cret", "/health")).status).toBe(404);

    const onHttpPort = await fetch(`${gw.origin}/api/metrics`, {
      headers: { authorization: "Bearer scrape-me-s3cret" },
    });
    expect(onHttpPort.status).toBe(404);
    const doc = await problemOf(onHttpPort);
    const unknown = await problemOf(await fetch(`${gw.origin}/api/metrix`));
    expect({ ...doc, instance: "", detail: "" }).toEqual({ ...unknown, instance: "", detail: "" });
  });
});
