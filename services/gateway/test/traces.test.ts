// OpenTelemetry trace export (docs/gateway.md, "Traces"): a gateway with OTEL_EXPORTER_OTLP_ENDPOINT sends a span
// per request to an OTLP/HTTP receiver (a plain HTTP server here, reading the JSON the exporter sends), a child of
// the caller's traceparent, named by route template; closing the gateway flushes them.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "@jest/globals";
import { startTestGateway } from "./harness.ts";

interface ExportedSpan {
  name: string;
  traceId: string;
  parentSpanId?: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}

const posts: { path: string; body: { resourceSpans: unknown[] } }[] = [];
let receiver: Server;
let endpoint: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      posts.push({ path: req.url ?? "", body: JSON.parse(body) as { resourceSpans: unknown[] } });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => receiver.close(r));
});

it("exports a span per request, under the caller's trace, named by route template", async () => {
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  const parentSpanId = "00f067aa0ba902b7";
  const gw = await startTestGateway({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
  try {
    const res = await fetch(`${gw.origin}/api/health`, {
      headers: { traceparent: `00-${traceId}-${parentSpanId}-01` },
    });
    expect(res.status).toBe(200);
    expect((await fetch(`${gw.origin}/api/no-such-path/123`)).status).toBe(404);
  } finally {
    await gw.close();
  }
  expect(posts.map((p) => p.path)).toContain("/v1/traces");
  const resourceSpans = posts.flatMap((p) => p.body.resourceSpans) as {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: ExportedSpan[] }[];
  }[];
  const serviceNames = resourceSpans.map(
    (r) => r.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue,
  );
  expect(serviceNames).toContain("sca-gateway");
  const spans = resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
  const health = spans.find((s) => s.name === "GET /health");
  expect(health).toMatchObject({ traceId, parentSpanId, kind: 2 });
  expect(health!.attributes).toEqual(
    expect.arrayContaining([
      { key: "http.route", value: { stringValue: "/health" } },
      { key: "http.response.status_code", value: { intValue: 200 } },
    ]),
  );
  // A path no route took is named as one series, its ids kept out.
  expect(spans.map((s) => s.name)).toContain("GET unmatched");
  expect(JSON.stringify(spans)).not.toContain("no-such-path");
});
