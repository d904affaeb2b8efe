// A Connect server that also answers gRPC (and gRPC-Web), over cleartext HTTP/2 inside the cluster.
// Every handler runs with the caller vouched for by the gateway and the request id of the edge request.
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { Code, ConnectError, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { withRequestId, type Logger } from "@sca/log";
import { ProblemError, toConnectError, unstorableTextViolations } from "@sca/problem";
import { ANONYMOUS, CALLER_HEADER, callerKey, verifyCallerToken } from "./caller.ts";
import type { HealthRegistry } from "./health.ts";

export interface RpcServerOptions {
  service: string;
  port: number;
  host?: string;
  logger: Logger;
  secretKey: string;
  health: HealthRegistry;
  /** Cap on one request message; Connect's default would allow gigabytes. */
  readMaxBytes: number;
  routes: (router: ConnectRouter) => void;
}

export interface RpcServer {
  port: number;
  /** Stops accepting new streams and waits for in-flight calls (up to graceMs). */
  close(graceMs?: number): Promise<void>;
}

function errorBoundary(logger: Logger): Interceptor {
  return (next) => async (req) => {
    const translate = (err: unknown): ConnectError => {
      // instanceof narrows to ProblemError<any>; a handler's problem carries a code of the set.
      if (err instanceof ProblemError) return toConnectError(err as ProblemError);
      if (err instanceof ConnectError) return err;
      logger.error({ err, procedure: req.method.name }, "unhandled error in handler");
      return new ConnectError("internal error", Code.Internal);
    };
    let res;
    try {
      res = await next(req);
    } catch (err) {
      throw translate(err);
    }
    if (!res.stream) return res;
    // A streamed answer fails while it is read, after next() returned: its errors are translated on the way too, or
    // a ProblemError thrown by a server-streaming handler (a 404 before the first item) would reach the caller as an
    // anonymous internal error.
    const messages = res.message;
    return {
      ...res,
      message: (async function* () {
        try {
          yield* messages;
        } catch (err) {
          throw translate(err);
        }
      })(),
    };
  };
}

/**
 * Refuses a request message holding text no service can store (NUL, unpaired surrogates) before any handler sees
 * it. The gateway refuses such fields first; this is the same rule for callers inside the cluster. Streamed
 * requests are judged by their handlers.
 */
function refuseUnstorableText(): Interceptor {
  return (next) => async (req) => {
    if (!req.stream) {
      const violations = unstorableTextViolations(req.message, "");
      if (violations.length) throw toConnectError(ProblemError.validation(violations));
    }
    return next(req);
  };
}

function callerFromToken(secretKey: string): Interceptor {
  return (next) => async (req) => {
    const token = req.header.get(CALLER_HEADER);
    if (token) {
      try {
        req.contextValues.set(callerKey, await verifyCallerToken(token, secretKey));
      } catch {
        throw new ConnectError("invalid caller token", Code.Unauthenticated);
      }
    } else {
      req.contextValues.set(callerKey, ANONYMOUS);
    }
    const requestId = req.header.get("x-request-id");
    return requestId ? withRequestId(requestId, () => next(req)) : next(req);
  };
}

/** What every service's handlers run behind: the caller the gateway vouched for, the request id, problems as Connect errors. */
export function serviceInterceptors(opts: { secretKey: string; logger: Logger }): Interceptor[] {
  return [callerFromToken(opts.secretKey), errorBoundary(opts.logger), refuseUnstorableText()];
}

export async function startRpcServer(opts: RpcServerOptions): Promise<RpcServer> {
  const handler = connectNodeAdapter({
    routes: (router) => {
      opts.health.register(router);
      opts.routes(router);
    },
    grpc: true,
    grpcWeb: true,
    connect: true,
    readMaxBytes: opts.readMaxBytes,
    interceptors: serviceInterceptors(opts),
  });
  const server = http2.createServer(handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (s) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host ?? "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  opts.logger.info({ port }, `${opts.service} rpc server listening`);
  return {
    port,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          for (const s of sessions) s.destroy();
        }, graceMs);
        for (const s of sessions) s.close(); // GOAWAY: in-flight streams finish, new ones go elsewhere
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
