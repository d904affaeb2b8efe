// Every domain service serves its process metrics on METRICS_PORT (docs/deploy.md, "Metrics"): a real service
// started by the test kit, scraped as Prometheus would, with and without the METRICS_TOKEN bearer.
import { afterAll, beforeAll, expect, it } from "@jest/globals";
import { startService, type TestService } from "@sca/testkit";

const TOKEN = "scrape-token-for-the-test";
let service: TestService;

beforeAll(async () => {
  // Port 0: any free port, read back from metricsUrl.
  service = await startService("policy", {
    env: { METRICS_ENABLED: "true", METRICS_PORT: "0", METRICS_TOKEN: TOKEN },
  });
}, 60_000);

afterAll(async () => {
  await service?.close();
});

it("answers GET /metrics with the bearer, 404 without it or on any other path", async () => {
  expect(service.metricsUrl).toBeDefined();
  expect(service.metricsUrl).not.toBe(service.url);
  const scrape = await fetch(`${service.metricsUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(scrape.status).toBe(200);
  expect(scrape.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await scrape.text();
  expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
  expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);

  expect((await fetch(`${service.metricsUrl}/metrics`)).status).toBe(404);
  expect(
    (await fetch(`${service.metricsUrl}/metrics`, { headers: { authorization: "Bearer another-token" } })).status,
  ).toBe(404);
  expect((await fetch(`${service.metricsUrl}/other`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
    404,
  );
});

it("has no metrics server unless METRICS_PORT is given", async () => {
  const plain = await startService("policy", { env: { METRICS_ENABLED: "true" } });
  try {
    expect(plain.metricsUrl).toBeUndefined();
  } finally {
    await plain.close();
  }
});
