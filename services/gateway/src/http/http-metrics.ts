// Prometheus metrics of the gateway: the process (CPU, memory, event loop, GC) and HTTP requests counted and
// timed by method, route template and status. Aggregates only: no path, user or request id becomes a label.
import type { RequestHandler } from "express";
import { processMetricsRegistry } from "@sca/runtime/metrics";
import { Counter, Histogram } from "prom-client";
import { routeTemplateOf } from "../api/route-template.ts";

const LABELS = ["method", "route", "status"] as const;

export class HttpMetrics {
  readonly registry = processMetricsRegistry();
  private readonly requests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered",
    labelNames: LABELS,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time to answer an HTTP request",
    labelNames: LABELS,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  middleware(): RequestHandler {
    return (req, res, next) => {
      const started = performance.now();
      res.once("finish", () => {
        // Requests no route took share one label, so scanning for paths cannot grow the series without bound.
        const labels = {
          method: req.method,
          route: routeTemplateOf(req) ?? "unmatched",
          status: String(res.statusCode),
        };
        this.requests.inc(labels);
        this.duration.observe(labels, (performance.now() - started) / 1000);
      });
      next();
    };
  }

  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
