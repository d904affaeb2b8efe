// Following a scan to its end. A person's access token opens the scan WebSocket (docs/scan-websocket.md: the socket
// takes access tokens only), which pushes each step as it happens; an API key polls GET /v1/scans/{id}, from every
// half second stretching to every 3 s. Either way the final record is read once over HTTP.
import type { Schemas } from "@sca/api-client";
import { answer, type Portal } from "./portal.ts";
import type { Progress } from "./terminal.ts";

export type Scan = Schemas["Scan"];
type Status = Scan["status"];

const TERMINAL: ReadonlySet<Status> = new Set(["succeeded", "failed", "cancelled"]);
const FIRST_POLL_MS = 500;
const MAX_POLL_MS = 3_000;

export function isFinished(status: Status): boolean {
  return TERMINAL.has(status);
}

export async function followScan(portal: Portal, scanId: string): Promise<Scan> {
  const progress = portal.terminal.progress(`scan ${scanId.slice(0, 8)}`, 100, "percent");
  try {
    if (portal.bearer?.kind === "access_token") {
      const ended = await portal.wait(overSocket(portal, scanId, progress));
      if (!ended) portal.terminal.debug("the scan socket closed early; polling instead");
    }
    return await poll(portal, scanId, progress);
  } finally {
    progress.stop();
  }
}

async function poll(portal: Portal, scanId: string, progress: Progress): Promise<Scan> {
  let delay = FIRST_POLL_MS;
  for (;;) {
    const scan = await answer(portal.api.GET("/v1/scans/{id}", { params: { path: { id: scanId } } }));
    progress.update(scan.progress_percent, scan.current_step || scan.status);
    if (isFinished(scan.status)) return scan;
    await portal.wait(new Promise((resolve) => setTimeout(resolve, delay)));
    delay = Math.min(Math.round(delay * 1.5), MAX_POLL_MS);
  }
}

interface ProgressFrame {
  type?: string;
  percent?: number;
  step?: string;
  status?: Status;
}

/** True once a frame said the scan finished; false when the socket ended before that. */
function overSocket(portal: Portal, scanId: string, progress: Progress): Promise<boolean> {
  const url = `${portal.apiUrl.replace(/^http/, "ws")}/ws/scans/${encodeURIComponent(scanId)}`;
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    let finished = false;
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify({ type: "auth", token: portal.bearer!.secret }));
    });
    socket.addEventListener("message", (event) => {
      let frame: ProgressFrame;
      try {
        frame = JSON.parse(String(event.data)) as ProgressFrame;
      } catch {
        return;
      }
      if (frame.type !== "progress") return;
      progress.update(frame.percent ?? 0, frame.step || frame.status);
      // The server keeps the socket open after the last frame (the spec has no close code for it): we close it.
      if (frame.status && isFinished(frame.status)) {
        finished = true;
        socket.close(1000);
      }
    });
    socket.addEventListener("close", (event) => {
      if (!finished) portal.terminal.debug(`scan socket closed ${event.code} ${event.reason}`);
      resolve(finished);
    });
    socket.addEventListener("error", () => {
      /* the close event follows and decides */
    });
  });
}
