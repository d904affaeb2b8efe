// OpenTelemetry trace export (docs/deploy.md, "Traces"): off unless OTEL_EXPORTER_OTLP_ENDPOINT names an OTLP/HTTP
// collector. The SDK's provider becomes the process's global one, so spans made through @opentelemetry/api anywhere
// in the process are batched and sent there; close() flushes what is left.
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { NodeSDK } from "@opentelemetry/sdk-node";

export interface Tracing {
  close(): Promise<void>;
}

/** Starts exporting the process's spans to `endpoint` (http://collector:4318), as service.name `sca-<service>`. */
export function startTracing(service: string, endpoint: string): Tracing {
  const sdk = new NodeSDK({
    serviceName: `sca-${service}`,
    traceExporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, "")}/v1/traces` }),
    // No automatic instrumentation: the spans are the ones our code makes (the gateway's per request).
    instrumentations: [],
  });
  sdk.start();
  return { close: () => sdk.shutdown() };
}
