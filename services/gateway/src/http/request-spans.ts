// A trace span per HTTP request (docs/gateway.md, "Traces"), a child of the caller's W3C traceparent when it sends
// one, named by method and route template (never the path: ids stay out of span names). Without tracing configured
// the API's tracer is a no-op, so this costs next to nothing.
import type { RequestHandler } from "express";
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { routeTemplateOf } from "../api/route-template.ts";

export function requestSpans(): RequestHandler {
  const tracer = trace.getTracer("sca-gateway");
  return (req, res, next) => {
    const parent = propagation.extract(context.active(), req.headers);
    const span = tracer.startSpan(req.method, { kind: SpanKind.SERVER }, parent);
    res.once("finish", () => {
      const route = routeTemplateOf(req) ?? "unmatched";
      span.updateName(`${req.method} ${route}`);
      span.setAttributes({
        "http.request.method": req.method,
        "http.route": route,
        "http.response.status_code": res.statusCode,
      });
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(parent, span), next);
  };
}
