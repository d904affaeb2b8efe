// WebSocket upgrades for /ws/* (and /api/ws/* locally). Before any handshake: a path outside /ws/ or without an
// endpoint is refused with 404, and a browser Origin not in CORS_ALLOWED_ORIGINS with 403 (browsers then see
// close 1006). Clients that send no Origin are not browsers, so cross-site WebSocket hijacking does not apply.
import { STATUS_CODES, type IncomingMessage, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { withRequestId, type Logger } from "@sca/log";
import { ProblemError } from "@sca/problem";
import { WebSocketServer, type WebSocket } from "ws";
import { notFoundProblem } from "../api/route-registry.ts";
import { templateMatcher } from "../api/path-template.ts";
import { PROBLEM_CONTENT_TYPE } from "../api/problem-schema.ts";
import { canonicalPath } from "../http/canonical-path.ts";
import type { ProblemRenderer } from "../http/problem-response.ts";
import { requestIdFrom } from "../http/request-id.ts";

export interface WebSocketEndpoint {
  /** Template of the backend path, e.g. /ws/scans/{scan_id}. */
  path: string;
  onConnection(socket: WebSocket, req: IncomingMessage, params: Record<string, string>): void;
}

// Clients send one small auth frame; nothing larger is ever expected from them.
const MAX_CLIENT_FRAME_BYTES = 64 * 1024;

export interface WebSocketOptions {
  allowedOrigins: readonly string[];
  endpoints: readonly WebSocketEndpoint[];
  problems: ProblemRenderer;
  logger: Logger;
}

function refuse(socket: Duplex, body: string, status: number, requestId: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-ID: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function attachWebSockets(server: Server, opts: WebSocketOptions): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES });
  const allowed = new Set(opts.allowedOrigins);
  const endpoints = opts.endpoints.map((e) => ({ endpoint: e, match: templateMatcher(e.path) }));

  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const requestId = requestIdFrom(req.headers["x-request-id"] as string | undefined);
    withRequestId(requestId, () => {
      const path = canonicalPath(new URL(req.url ?? "/", "http://gateway").pathname);
      const answer = (problem: ProblemError) => {
        opts.logger.info({ path, status: problem.status }, "websocket upgrade refused");
        refuse(socket, JSON.stringify(opts.problems.document(problem, path)), problem.status, requestId);
      };
      if (!path.startsWith("/ws/")) return answer(notFoundProblem(path));
      const origin = req.headers.origin;
      if (origin !== undefined && !allowed.has(origin)) {
        return answer(
          new ProblemError({
            status: 403,
            code: "origin_rejected",
            detail: "WebSocket connections from this origin are not allowed.",
          }),
        );
      }
      for (const { endpoint, match } of endpoints) {
        const params = match(path);
        if (!params) continue;
        wss.handleUpgrade(req, socket, head, (ws) =>
          withRequestId(requestId, () => endpoint.onConnection(ws, req, params)),
        );
        return;
      }
      answer(notFoundProblem(path));
    });
  });
  return wss;
}
