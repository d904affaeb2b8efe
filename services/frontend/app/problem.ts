// An API error as the user sees it: the problem document's title and detail, and the request id to quote.
import { isProblem, type Problem } from "@sca/api-client";

export class ProblemError extends Error {
  readonly title: string;
  readonly detail: string;
  readonly status: number;
  readonly code: string | undefined;
  readonly requestId: string | null;
  readonly errors: Problem["errors"];

  constructor(status: number, body: unknown, requestId: string | null) {
    const problem = isProblem(body) ? body : undefined;
    const title = problem?.title ?? `The server answered ${status}`;
    super(title);
    this.title = title;
    this.detail = problem?.detail ?? "";
    this.status = status;
    this.code = problem?.code;
    this.requestId = requestId;
    this.errors = problem?.errors;
  }
}

/** The data of an openapi-fetch answer, or its problem thrown as a ProblemError. */
export function dataOf<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.response.ok && answer.error === undefined) return answer.data as T;
  throw new ProblemError(answer.response.status, answer.error, answer.response.headers.get("X-Request-ID"));
}
