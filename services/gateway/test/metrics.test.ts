// /metrics: Prometheus text when METRICS_ENABLED, 404 (as an unknown path) when off or on a wrong bearer; with
// METRICS_PORT on a port of its own only.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
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
  });
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
