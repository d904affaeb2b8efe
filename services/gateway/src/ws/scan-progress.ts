// /ws/scans/{scan_id}: a scan's live progress, as the spec's Events part says (choices: docs/scan-websocket.md).
// The client's first frame is {type: auth, token} within WEBSOCKET_AUTH_TIMEOUT_SECONDS; the caps are counted in
// Redis across instances (connection-caps.ts); the scan-orchestrator's GetScan, called as the caller, answers the
// initial-sync frame and decides visibility; then the scan events every instance reads (scan-events-feed.ts) go out
// as progress and log frames. After a terminal state frame the socket stays open (the spec's close table has no
// code for a finished scan) until the client closes it, the keepalive fails or the per-user cap evicts it.
import type { IncomingMessage } from "node:http";
import { Code, ConnectError, createContextValues } from "@connectrpc/connect";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { Logger } from "@sca/log";
import type { Scan } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import type { ScanLogLine, ScanProgress, ScanStateChanged } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { callerTokenKey } from "@sca/rpc";
import { nextLogLine, type LogLimits } from "@sca/scan-logs";
import type { WebSocket } from "ws";
import type { GatewayContext } from "../context.ts";
import { InactiveAccountProblem } from "../http/authenticate.ts";
import { startConnectionCaps } from "./connection-caps.ts";
import type { WebSocketEndpoint } from "./websocket-upgrade.ts";
import { UUID } from "@sca/ids";

/** The spec's server-sent close codes and reasons. */
export const CLOSE = {
  newerConnection: [1001, "newer_connection"],
  authTimeout: [1008, "auth_timeout"],
  authInvalid: [1008, "auth_invalid"],
  authInactive: [1008, "auth_inactive"],
  internal: [1011, "internal"],
  badMessage: [4400, "bad_message"],
  forbidden: [4403, "forbidden"],
  scanNotFound: [4404, "scan_not_found"],
  capacityAtLimit: [4429, "capacity_at_limit"],
} as const satisfies Record<string, readonly [number, string]>;

/**
 * Shutdown's close: the table has no shutdown reason, and every code but 1011 names a cause that would mislead
 * (1001 is the per-user eviction); 1011 internal, as when the forward loop fails, and the client reconnects.
 */
export const SHUTDOWN_CLOSE = CLOSE.internal;

const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);
/** Between keepalive pings; a socket that has not answered the previous ping by the next one is closed 1011. */
export const DEFAULT_KEEPALIVE_MS = 25_000;

/** One scan event as the feed hands it out. */
export type ScanEvent =
  | { kind: "progress"; message: ScanProgress }
  | { kind: "log"; message: ScanLogLine }
  | { kind: "state"; message: ScanStateChanged };

interface Watcher {
  deliver(event: ScanEvent, logDecision: ReturnType<typeof nextLogLine> | null): void;
}

export interface ScanProgressHub {
  endpoint: WebSocketEndpoint;
  /** Hands one scan event to this instance's sockets of that scan. */
  publish(this: void, event: ScanEvent): void;
  /** Closes every socket of this instance with 1011 internal (SHUTDOWN_CLOSE) and counts them out. */
  close(): Promise<void>;
}

export interface ScanProgressOptions {
  ctx: GatewayContext;
  /** Redis key prefix of the caps, shared by the deployment's instances. */
  namespace: string;
  /** Between keepalive pings. */
  keepaliveMs: number;
}

const iso = (ts: Timestamp | undefined) => (ts ? timestampDate(ts) : new Date()).toISOString();

export async function startScanProgressHub(opts: ScanProgressOptions): Promise<ScanProgressHub> {
  const { ctx } = opts;
  const logger: Logger = ctx.logger.child({ component: "scan-websocket" });
  const { config } = ctx;
  const limits: LogLimits = { lineMaxLen: config.SCAN_LOG_LINE_MAX_LEN, maxLines: config.SCAN_LOG_MAX_LINES_PER_SCAN };
  const { keepaliveMs } = opts;
  const watchers = new Map<string, Set<Watcher>>(); // scan id -> sockets watching it
  // Log lines forwarded per scan (every stage, every attempt): every instance reads every event, so all agree.
  const logLinesSent = new Map<string, number>();
  const sockets = new Map<string, WebSocket>(); // connection id -> socket, for evictions
  const caps = await startConnectionCaps({
    redis: ctx.redis,
    namespace: opts.namespace,
    globalCap: config.WEBSOCKET_MAX_CONNECTIONS_GLOBAL,
    perUserCap: config.WEBSOCKET_MAX_CONNECTIONS_PER_USER,
    logger,
    evict(connectionId) {
      const socket = sockets.get(connectionId);
      if (socket) close(socket, CLOSE.newerConnection);
    },
  });

  function close(socket: WebSocket, [code, reason]: readonly [number, string]): void {
    if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(code, reason);
  }

  function publish(event: ScanEvent): void {
    const scanId = event.message.scanId;
    let decision: ReturnType<typeof nextLogLine> | null = null;
    if (event.kind === "log") {
      const sent = logLinesSent.get(scanId) ?? 0;
      // The worker numbers lines across stages; a number past the cap is past it whatever this instance counted.
      decision =
        event.message.lineNumber > limits.maxLines
          ? { send: false }
          : nextLogLine(sent, event.message.line, event.message.stream, limits);
      if (decision.send) logLinesSent.set(scanId, sent + 1);
    }
    if (event.kind === "state" && TERMINAL.has(event.message.status)) logLinesSent.delete(scanId);
    for (const watcher of watchers.get(scanId) ?? []) watcher.deliver(event, decision);
  }

  function onConnection(socket: WebSocket, req: IncomingMessage, params: Record<string, string>): void {
    const scanId = params.scan_id!;
    let userId: string | null = null;
    let connectionId: string | null = null;
    let watcher: Watcher | null = null;
    let alive = true;
    const authTimer = setTimeout(() => close(socket, CLOSE.authTimeout), config.WEBSOCKET_AUTH_TIMEOUT_SECONDS * 1000);
    const keepalive = setInterval(() => {
      if (!alive) return close(socket, CLOSE.internal);
      alive = false;
      socket.ping();
    }, keepaliveMs);
    socket.on("pong", () => (alive = true));
    socket.on("error", (err) => logger.debug({ err }, "socket error"));
    socket.on("close", () => {
      clearTimeout(authTimer);
      clearInterval(keepalive);
      if (watcher) watchers.get(scanId)?.delete(watcher);
      if (watchers.get(scanId)?.size === 0) watchers.delete(scanId);
      if (connectionId) {
        sockets.delete(connectionId);
        caps.release(connectionId, userId!).catch((err: unknown) => logger.warn({ err }, "could not count out"));
      }
    });
    socket.once("message", (data: Buffer, isBinary: boolean) => {
      clearTimeout(authTimer);
      const token = authTokenOf(isBinary ? null : data.toString("utf8"));
      if (token === null) return close(socket, CLOSE.badMessage);
      start(token).catch((err: unknown) => {
        logger.error({ err, scanId }, "scan websocket failed");
        close(socket, CLOSE.internal);
      });
    });

    async function start(token: string): Promise<void> {
      let authenticated;
      try {
        authenticated = await ctx.auth.resolve(token, {
          // The socket's address: identity records it for a user's access (X-Forwarded-For is not read here).
          ip: req.socket.remoteAddress ?? "",
          userAgent: req.headers["user-agent"] ?? "",
        });
      } catch (err) {
        if (err instanceof InactiveAccountProblem) return close(socket, CLOSE.authInactive);
        if (isClientProblem(err)) return close(socket, CLOSE.authInvalid);
        throw err;
      }
      const { caller } = authenticated;
      // An access token only: API keys (and any caller that is not a user) are not for live progress.
      if (caller.kind !== "user" || caller.api_key_id !== null) return close(socket, CLOSE.authInvalid);
      if (socket.readyState !== socket.OPEN) return;
      if (!UUID.test(scanId)) return close(socket, CLOSE.scanNotFound);
      if (!caller.user_id) return close(socket, CLOSE.authInvalid);
      const admission = await caps.admit(caller.user_id);
      if (!admission.admitted) return close(socket, CLOSE.capacityAtLimit);
      // Closed while being counted in: the close handler has run already, so count out here.
      if (socket.readyState !== socket.OPEN) return caps.release(admission.connectionId, caller.user_id);
      userId = caller.user_id;
      connectionId = admission.connectionId;
      sockets.set(connectionId, socket);
      // Events that arrive while GetScan is answering wait, so the initial sync is the first frame.
      const pending: [ScanEvent, ReturnType<typeof nextLogLine> | null][] = [];
      let scan: Scan | null = null;
      watcher = {
        deliver: (event, decision) => (scan ? forward(event, decision) : pending.push([event, decision])),
      };
      let set = watchers.get(scanId);
      if (!set) watchers.set(scanId, (set = new Set()));
      set.add(watcher);
      try {
        const answer = await ctx.clients["scan-orchestrator"].scans.getScan(
          { scanId },
          { contextValues: createContextValues().set(callerTokenKey, authenticated.token) },
        );
        scan = answer.scan!;
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.NotFound) return close(socket, CLOSE.scanNotFound);
        if (err instanceof ConnectError && err.code === Code.PermissionDenied) return close(socket, CLOSE.forbidden);
        throw err;
      }
      let percent = scan.progressPercent;
      let step = scan.currentStep;
      const send = (frame: Record<string, unknown>) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
      };
      // The final frame; the socket stays open (no close code in the spec's table fits a finished scan).
      const finish = (status: string, ts: string, errorMessage: string | undefined) =>
        send({ type: "progress", percent, step, ts, status, ...(errorMessage ? { error_message: errorMessage } : {}) });
      function forward(event: ScanEvent, decision: ReturnType<typeof nextLogLine> | null): void {
        if (event.kind === "progress") {
          if (event.message.heartbeat) return;
          percent = event.message.percent;
          step = event.message.step;
          send({ type: "progress", percent, step, ts: iso(event.message.occurredAt) });
        } else if (event.kind === "log") {
          if (!decision?.send) return;
          send({
            type: "log",
            stage: event.message.stage,
            stream: decision.stream,
            line: decision.line,
            ts: iso(event.message.occurredAt),
          });
        } else {
          const m = event.message;
          if (TERMINAL.has(m.status)) finish(m.status, iso(m.occurredAt), m.errorMessage);
          else send({ type: "progress", percent, step, ts: iso(m.occurredAt), status: m.status });
        }
      }
      const syncedAt = new Date().toISOString();
      if (TERMINAL.has(scan.status)) return finish(scan.status, syncedAt, scan.errorMessage);
      send({ type: "progress", percent, step, ts: syncedAt, status: scan.status, sync: true });
      for (const [event, decision] of pending.splice(0)) forward(event, decision);
    }
  }

  return {
    endpoint: { path: "/ws/scans/{scan_id}", onConnection },
    publish,
    async close() {
      for (const socket of sockets.values()) close(socket, SHUTDOWN_CLOSE);
      await caps.close();
    },
  };
}

/** The token of a valid auth frame ({type: "auth", token: non-empty string}), else null. */
export function authTokenOf(text: string | null): string | null {
  if (text === null) return null;
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) return null;
  const { type, token } = frame as Record<string, unknown>;
  return type === "auth" && typeof token === "string" && token.trim() !== "" ? token : null;
}

function isClientProblem(err: unknown): boolean {
  return typeof err === "object" && err !== null && "status" in err && (err as { status: number }).status === 401;
}
