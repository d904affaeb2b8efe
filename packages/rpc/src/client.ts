// Connect clients of other services. The caller token and the request id travel with every call.
import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createContextKey, type Client, type Interceptor } from "@connectrpc/connect";
import type http2 from "node:http2";
import { createConnectTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { currentRequestId } from "@sca/log";
import { CALLER_HEADER } from "./caller.ts";

export function createServiceClient<S extends DescService>(
  service: S,
  baseUrl: string,
  opts: { timeoutMs?: number } = {},
): Client<S> {
  const propagate: Interceptor = (next) => (req) => {
    const requestId = currentRequestId();
    if (requestId) req.header.set("x-request-id", requestId);
    const token = req.contextValues.get(callerTokenKey);
    if (token) req.header.set(CALLER_HEADER, token);
    return next(req);
  };
  // The Connect protocol (binary, HTTP/2) rather than gRPC: the same server answers both, and a unary call costs
  // each side less without gRPC's envelopes and trailers (bench/rpc-hop.ts, docs/benchmarks.md).
  const transport = createConnectTransport({
    baseUrl,
    httpVersion: "2",
    useBinaryFormat: true,
    interceptors: [propagate, unreachableIsUnavailable],
    defaultTimeoutMs: opts.timeoutMs ?? 10_000,
    sessionManager: new WideWindowSessionManager(
      baseUrl,
      { pingIntervalMs: 30_000 },
      {
        settings: { initialWindowSize: STREAM_WINDOW_BYTES },
      },
    ),
    // No compression between services: on a cluster network gzip costs more CPU on both ends than the bytes it
    // saves (a 50-row component list: about 1 ms to compress in projects: git log -p docs/benchmarks.md).
    acceptCompression: [],
  });
  return createClient(service, transport);
}

// HTTP/2's default receive windows are 64 KiB: a 137 KB page then came in three parts, each waiting for a
// WINDOW_UPDATE the client wrote on its own (a syscall and a wake-up of the server per part). A whole page fits now;
// what a stalled stream may hold is still bounded, by these windows.
const STREAM_WINDOW_BYTES = 1 << 20;
const SESSION_WINDOW_BYTES = 8 << 20;

/** Sessions whose connection-wide window is widened too: Node sets that one only on a session, once it exists. */
class WideWindowSessionManager extends Http2SessionManager {
  private readonly widened = new WeakSet<http2.Http2Session>();

  override async request(...args: Parameters<Http2SessionManager["request"]>): Promise<http2.ClientHttp2Stream> {
    const stream = await super.request(...args);
    const session = stream.session;
    if (session && !this.widened.has(session)) {
      this.widened.add(session);
      session.setLocalWindowSize(SESSION_WINDOW_BYTES);
    }
    return stream;
  }
}

const UNREACHABLE = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)\b/;

// A service that cannot be reached is unavailable (503 at the edge), not an internal error (500): the HTTP/2
// session manager reports a refused connection as Code.Internal.
const unreachableIsUnavailable: Interceptor = (next) => async (req) => {
  try {
    return await next(req);
  } catch (err) {
    const ce = ConnectError.from(err);
    const causes = [ce.rawMessage, (ce.cause as { code?: unknown } | undefined)?.code].map(String).join(" ");
    if (ce.code === Code.Internal && UNREACHABLE.test(causes))
      throw new ConnectError(`${req.service.typeName} is unreachable`, Code.Unavailable, undefined, undefined, ce);
    throw err;
  }
};

/** Set per call: `client.method(req, { contextValues: createContextValues().set(callerTokenKey, token) })`. */
export const callerTokenKey = createContextKey<string | undefined>(undefined, { description: "signed caller token" });
