// Scan log lines as the spec's Events part bounds them: a line longer than SCAN_LOG_LINE_MAX_LEN is truncated,
// and after SCAN_LOG_MAX_LINES_PER_SCAN lines (every stage counted together) no more are sent; progress goes on.
// The worker applies these before publishing; the gateway forwards what arrives.

export const TRUNCATION_MARK = "…";

export interface LogLimits {
  /** SCAN_LOG_LINE_MAX_LEN */
  lineMaxLen: number;
  /** SCAN_LOG_MAX_LINES_PER_SCAN */
  maxLines: number;
}

/**
 * The line cut to at most `maxLen` characters (code points, so a surrogate pair is never split), the last one
 * being the truncation mark; a trailing carriage return is dropped first.
 */
export function truncateLogLine(line: string, maxLen: number): string {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line;
  if (text.length <= maxLen) return text; // UTF-16 length bounds the code point count from above
  const points = [...text];
  if (points.length <= maxLen) return text;
  return points.slice(0, Math.max(0, maxLen - 1)).join("") + TRUNCATION_MARK;
}

/** stdout or stderr; any other stream is normalised to stdout. */
export function normalizeLogStream(stream: string): "stdout" | "stderr" {
  return stream === "stderr" ? "stderr" : "stdout";
}

export type LogLineDecision =
  { send: false } | { send: true; lineNumber: number; line: string; stream: "stdout" | "stderr" };

/** Whether the next line goes out, given how many lines the scan has sent so far (all stages). */
export function nextLogLine(sentSoFar: number, line: string, stream: string, limits: LogLimits): LogLineDecision {
  if (sentSoFar >= limits.maxLines) return { send: false };
  return {
    send: true,
    lineNumber: sentSoFar + 1,
    line: truncateLogLine(line, limits.lineMaxLen),
    stream: normalizeLogStream(stream),
  };
}
