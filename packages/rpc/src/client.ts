// Connect clients of other services. The caller token and the request id travel with every call.
import type { DescService } from "@bufbuild/protobuf";
import { createClient, createContextKey, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { currentRequestId } from "@sca/log";
import { CALLER_HEADER } from "./caller.ts";

export function createServiceClient<S extends DescService>(service: S, baseUrl: string, opts: { timeoutMs?: number } = {}): Client<S> {
  const propagate: Interceptor = (next) => (req) => {
    const requestId = currentRequestId();
    if (requestId) req.header.set("x-request-id", requestId);
    const token = req.contextValues.get(callerTokenKey);
    if (token) req.header.set(CALLER_HEADER, token);
    return next(req);
  };
  const transport = createGrpcTransport({
    baseUrl,
    interceptors: [propagate],
    defaultTimeoutMs: opts.timeoutMs ?? 10_000,
    pingIntervalMs: 30_000,
  });
  return createClient(service, transport);
}

/** Set per call: `client.method(req, { contextValues: createContextValues().set(callerTokenKey, token) })`. */
export const callerTokenKey = createContextKey<string | undefined>(undefined, { description: "signed caller token" });
