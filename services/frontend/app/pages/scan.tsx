// A scan's page: its state, live over the scan WebSocket (reconnecting until the scan ends), and its log lines.
import { useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { useEffect, useRef, useState } from "react";
import { bearer, refresh } from "../session/session.ts";

const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);
// The spec's close codes as sentences; docs/scan-websocket.md says when each is sent.
const CLOSE_REASONS: Record<number, string> = {
  1001: "This scan is being watched in a newer tab or window; this page stopped following it.",
  1008: "Your session could not be verified for live progress.",
  1011: "The live connection failed on the server's side.",
  4400: "The live connection was refused: the page sent a message the server did not understand.",
  4403: "You may not follow this scan: it belongs to another team.",
  4404: "There is no such scan, or you may not see it.",
  4429: "The server follows too many scans right now; try again in a minute.",
};
const FINAL_CLOSES = new Set([1001, 4400, 4403, 4404]);
const MAX_LOG_LINES = 500;

interface Frame {
  type?: string;
  percent?: number;
  step?: string;
  status?: string;
  error_message?: string;
  stage?: string;
  stream?: string;
  line?: string;
}

export function ScanPage() {
  const { projectId, scanId }: { projectId: string; scanId: string } = useParams({ strict: false });
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState<Frame>({});
  const [log, setLog] = useState<string[]>([]);
  const [closed, setClosed] = useState<string | null>(null);
  const [connected, setConnected] = useState(false);
  const status = useRef<string | undefined>(undefined);

  useEffect(() => {
    let socket: WebSocket | null = null;
    let stopped = false;
    let attempt = 0;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const connect = () => {
      const scheme = window.location.protocol === "https:" ? "wss" : "ws";
      socket = new WebSocket(`${scheme}://${window.location.host}/api/ws/scans/${encodeURIComponent(scanId)}`);
      socket.onopen = () => socket?.send(JSON.stringify({ type: "auth", token: bearer() ?? "" }));
      socket.onmessage = (e: MessageEvent<string>) => {
        attempt = 0;
        setConnected(true);
        setClosed(null);
        let frame: Frame;
        try {
          frame = JSON.parse(e.data) as Frame;
        } catch {
          return;
        }
        // A frame without a type is progress; a frame of a type this page does not know is skipped.
        const type = frame.type ?? "progress";
        if (type === "progress") {
          setProgress((p) => ({ ...p, ...frame }));
          if (frame.status) {
            status.current = frame.status;
            if (TERMINAL.has(frame.status)) {
              void queryClient.invalidateQueries({ queryKey: ["project", projectId] });
              socket?.close(1000);
            }
          }
        } else if (type === "log" && frame.line !== undefined) {
          setLog((l) => [...l.slice(-(MAX_LOG_LINES - 1)), `[${frame.stage ?? ""}] ${frame.line}`]);
        }
      };
      socket.onclose = (e: CloseEvent) => {
        setConnected(false);
        if (stopped || (status.current && TERMINAL.has(status.current))) return;
        setClosed(CLOSE_REASONS[e.code] ?? "The live connection was lost; reconnecting…");
        if (FINAL_CLOSES.has(e.code)) return;
        attempt += 1;
        const delay = Math.min(1000 * 2 ** attempt, 30_000);
        // 1008: the access token may have expired; a refresh before the next try.
        retry = setTimeout(() => void (e.code === 1008 ? refresh() : Promise.resolve()).then(connect), delay);
      };
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      socket?.close(1000);
    };
  }, [scanId, projectId, queryClient]);

  // The state frame repeats the last progress (often 99); a succeeded scan is complete.
  const percent = progress.status === "succeeded" ? 100 : (progress.percent ?? 0);
  return (
    <main>
      <p>
        <Link to="/projects/$projectId" params={{ projectId }}>
          Back to the project
        </Link>
      </p>
      <h1>Scan</h1>
      <p role="status" aria-live="polite">
        Status: <strong data-testid="scan-status">{progress.status ?? "connecting"}</strong>
        {progress.step ? ` · ${progress.step}` : ""} {connected ? "" : "(not live)"}
      </p>
      <progress max={100} value={percent} aria-label="Scan progress">
        {percent}%
      </progress>
      {progress.error_message ? (
        <div role="alert" className="problem">
          <strong>The scan failed</strong>
          <p>{progress.error_message}</p>
        </div>
      ) : null}
      {closed ? <p role="alert">{closed}</p> : null}
      {progress.status === "succeeded" ? (
        <p>
          <Link to="/projects/$projectId/components" params={{ projectId }}>
            Components
          </Link>{" "}
          ·{" "}
          <Link to="/projects/$projectId/vulnerabilities" params={{ projectId }}>
            Vulnerabilities
          </Link>
        </p>
      ) : null}
      <h2>Log</h2>
      <pre className="log" tabIndex={0} aria-label="Scan log">
        {log.join("\n") || "No log lines yet."}
      </pre>
    </main>
  );
}
