// The one place an error becomes an answer. Whatever was thrown or passed to next() — a ProblemError, a Connect
// error from a service, a body-parser error, a bug — is turned into a ProblemError here and rendered as
// application/problem+json with `instance` = the canonical request path. Titles and details are English.
import type { ErrorRequestHandler, Response } from "express";
import { ConnectError } from "@connectrpc/connect";
import type { Logger } from "@sca/log";
import { fromConnectError, ProblemError, type ProblemDocument } from "@sca/problem";
import { PROBLEM_CONTENT_TYPE } from "../api/problem-schema.ts";

export interface ProblemRenderer {
  document(problem: ProblemError, instance: string): ProblemDocument;
  send(res: Response, problem: ProblemError, instance: string): void;
}

/** `baseUrl` is the `{base_url}` of problem type URIs, fixed once from configuration (see docs/gateway.md). */
export function createProblemRenderer(baseUrl: string): ProblemRenderer {
  const document = (problem: ProblemError, instance: string) => problem.toDocument(baseUrl, instance);
  return {
    document,
    send(res, problem, instance) {
      for (const [name, value] of Object.entries(problem.init.headers ?? {})) res.setHeader(name, value);
      res
        .status(problem.status)
        .type(PROBLEM_CONTENT_TYPE)
        .send(JSON.stringify(document(problem, instance)));
    },
  };
}

// body-parser and router errors are http-errors: a status, an `expose` flag and, for body errors, a `type`.
interface HttpError extends Error {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
  limit?: number;
}

const UNEXPECTED = "An unexpected error occurred.";

function fromHttpError(err: HttpError): ProblemError | undefined {
  switch (err.type) {
    case "entity.parse.failed":
      return new ProblemError({
        status: 400,
        code: "malformed_json",
        detail: `The request body is not valid JSON: ${err.message}`,
      });
    case "entity.too.large":
      return new ProblemError({
        status: 413,
        code: "body_too_large",
        detail: `The request body exceeds the limit of ${err.limit ?? "?"} bytes.`,
      });
    case "encoding.unsupported":
    case "charset.unsupported":
      return new ProblemError({ status: 415, code: "unsupported_media_type", detail: err.message });
    case "request.aborted":
    case "request.size.invalid":
      return new ProblemError({ status: 400, code: "bad_request", detail: "The request body was incomplete." });
  }
  const status = err.status ?? err.statusCode;
  if (status !== undefined && status >= 400 && status < 500 && err.expose)
    return new ProblemError({ status, detail: err.message });
  return undefined;
}

/** The error answer for `err`, and whether it is a fault of ours to log with its cause. */
function problemFor(err: unknown): { problem: ProblemError; unexpected: boolean } {
  // instanceof narrows to ProblemError<any>: every ProblemError raised here carries a code of the set.
  if (err instanceof ProblemError) return { problem: err as ProblemError, unexpected: false };
  if (err instanceof ConnectError) {
    const problem = fromConnectError(err);
    return { problem, unexpected: problem.status >= 500 };
  }
  const fromHttp = err instanceof Error ? fromHttpError(err) : undefined;
  if (fromHttp) return { problem: fromHttp, unexpected: false };
  return { problem: new ProblemError({ status: 500, detail: UNEXPECTED }), unexpected: true };
}

export function problemErrorHandler(renderer: ProblemRenderer, logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const { problem, unexpected } = problemFor(err);
    if (unexpected) logger.error({ err, method: req.method, path: req.path }, "request failed");
    if (res.headersSent) {
      // Too late for a problem document: cut the answer short so the client sees it failed.
      res.destroy();
      return;
    }
    renderer.send(res, problem, req.path);
  };
}
