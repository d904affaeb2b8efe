// A Connect server that also answers gRPC (and gRPC-Web), over cleartext HTTP/2 inside the cluster.
// Every handler runs with the caller vouched for by the gateway and the request id of the edge request.
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { Code, ConnectError, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { withRequestId, type Logger } from "@sca/log";
import { ProblemError, toConnectError } from "@sca/problem";
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
  const connectErrorOf = (err: unknown, procedure: string): ConnectError => {
    if (err instanceof ProblemError) return toConnectError(err);
    if (err instanceof ConnectError) return err;
    logger.error({ err, procedure }, "unhandled error in handler");
    return new ConnectError("internal error", Code.Internal);
  };
  // A streamed answer's handler runs while its messages are read: its errors surface there, not from next().
  async function* guarded<T>(messages: AsyncIterable<T>, procedure: string): AsyncIterable<T> {
    try {
      yield* messages;
    } catch (err) {
      throw connectErrorOf(err, procedure);
    }
  }
  return (next) => async (req) => {
    try {
      const res = await next(req);
      return res.stream ? { ...res, message: guarded(res.message, req.method.name) } : res;
    } catch (err) {
      throw connectErrorOf(err, req.method.name);
    }
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
  return [callerFromToken(opts.secretKey), errorBoundary(opts.logger)];
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
