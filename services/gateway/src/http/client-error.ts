// Requests Node's HTTP parser refuses before express sees them (a request line plus headers over the size limit,
// malformed HTTP such as a space in a header name or Content-Length with Transfer-Encoding) still get a problem
// document, as every 4xx does, and the connection is closed: after a parse error the stream cannot be trusted.
import type { Socket } from "node:net";
import { ProblemError } from "@sca/problem";
import { PROBLEM_CONTENT_TYPE } from "../api/problem-schema.ts";
import type { ProblemRenderer } from "./problem-response.ts";
import { canonicalPath } from "./canonical-path.ts";

interface ParserError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

function problemOf(err: ParserError): ProblemError {
  switch (err.code) {
    case "HPE_HEADER_OVERFLOW":
      return new ProblemError({
        status: 431,
        code: "request_header_fields_too_large",
        detail: "The request line and headers are too large.",
      });
    case "ERR_HTTP_REQUEST_TIMEOUT":
    case "HPE_HEADERS_TIMEOUT":
      return new ProblemError({
        status: 408,
        code: "request_timeout",
        detail: "The request was not received in time.",
      });
    default:
      return new ProblemError({ status: 400, code: "malformed_request", detail: "The request is not valid HTTP/1.1." });
  }
}

/** The path of the request line the parser saw, when it saw one; the query is never echoed. */
function instanceOf(err: ParserError): string {
  const line = err.rawPacket?.subarray(0, 4096).toString("latin1").split("\r\n", 1)[0] ?? "";
  const target = line.split(" ")[1] ?? "";
  const path = target.split("?", 1)[0] ?? "";
  return path.startsWith("/") && /^[\x21-\x7e]{1,2048}$/.test(path) ? canonicalPath(path) : "/";
}

export function answerClientError(renderer: ProblemRenderer): (err: ParserError, socket: Socket) => void {
  return (err, socket) => {
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const problem = problemOf(err);
    const body = JSON.stringify(renderer.document(problem, instanceOf(err)));
    socket.end(
      `HTTP/1.1 ${problem.status} ${REASONS[problem.status]}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        "Connection: close\r\n\r\n" +
        body,
    );
  };
}
