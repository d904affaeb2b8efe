// The portal as the CLI reaches it: the shared typed client (@sca/api-client) with the bearer attached, every
// request retried on 429/503 (retry-policy.ts), timed (--verbose prints each; the benchmark reads the sum), and a
// refused request turned into one line with the problem's title and the request id. No header is ever printed.
import { createApiClient, isProblem, type ApiClient } from "@sca/api-client";
import { describeBearer, type Bearer } from "./credentials.ts";
import { CliError, EXIT } from "./exit-codes.ts";
import { MAX_ATTEMPTS, isRetryable, retryDelayMs } from "./retry-policy.ts";
import type { Terminal } from "./terminal.ts";

export interface Portal {
  api: ApiClient;
  /** The API's base URL (origin plus /api). */
  apiUrl: string;
  bearer: Bearer | null;
  terminal: Terminal;
  /** Milliseconds spent waiting on the portal: requests (retries included) and scans followed. */
  waitedMs: number;
  /** Sends a request built afresh for each attempt (an upload's body is a stream that cannot be replayed). */
  send(build: () => Request): Promise<Response>;
  /** Times something the portal does while the CLI waits (a scan running). */
  wait<T>(work: Promise<T>): Promise<T>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function connectPortal(apiUrl: string, bearer: Bearer | null, terminal: Terminal): Portal {
  const base = apiUrl.replace(/\/+$/, "");
  const portal: Portal = {
    apiUrl: base,
    bearer,
    terminal,
    waitedMs: 0,
    api: undefined as unknown as ApiClient,
    async send(build) {
      for (let attempt = 1; ; attempt++) {
        const request = build();
        if (bearer) request.headers.set("authorization", `Bearer ${bearer.secret}`);
        const started = performance.now();
        let response: Response;
        try {
          response = await fetch(request);
        } catch (err) {
          portal.waitedMs += performance.now() - started;
          const cause = (err as { cause?: { code?: string; message?: string } }).cause;
          throw new CliError(`the portal at ${base} did not answer (${cause?.code ?? cause?.message ?? String(err)})`);
        }
        const took = performance.now() - started;
        portal.waitedMs += took;
        terminal.debug(
          `${request.method} ${new URL(request.url).pathname} → ${response.status} in ${took.toFixed(0)} ms (request id ${response.headers.get("x-request-id") ?? "none"})`,
        );
        if (!isRetryable(response.status) || attempt >= MAX_ATTEMPTS) return response;
        const delay = retryDelayMs(attempt, response.headers.get("retry-after"), Date.now());
        if (delay === null) return response;
        await response.body?.cancel();
        terminal.info(`the portal answered ${response.status}; trying again in ${(delay / 1000).toFixed(1)} s`);
        const waitStarted = performance.now();
        await sleep(delay);
        portal.waitedMs += performance.now() - waitStarted;
      }
    },
    async wait(work) {
      const started = performance.now();
      try {
        return await work;
      } finally {
        portal.waitedMs += performance.now() - started;
      }
    },
  };
  portal.api = createApiClient({
    baseUrl: base,
    // Small JSON bodies: each attempt sends a copy of the request openapi-fetch built.
    fetch: (request: Request) => portal.send(() => request.clone()),
  });
  return portal;
}

/** The data of an openapi-fetch answer, or the one-line error of its problem document. */
export async function answer<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
  hint?: (status: number) => string | undefined,
): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  throw refusal(response, error, hint);
}

/** The one-line error of a refused request: status, the problem's title and detail, the request id. */
export function refusal(response: Response, body: unknown, hint?: (status: number) => string | undefined): CliError {
  const requestId = response.headers.get("x-request-id");
  const problem = isProblem(body) ? body : null;
  const what = problem
    ? `${problem.title}${problem.detail && problem.detail !== problem.title ? `: ${problem.detail}` : ""}`
    : response.statusText || "no problem document";
  const extra = hint?.(response.status);
  return new CliError(
    `${response.status} ${what}${extra ? ` (${extra})` : ""}${requestId ? ` [request id ${requestId}]` : ""}`,
    EXIT.noAnswer,
  );
}

/** What the CLI says a key may not do: scanning needs read-write, reading is fine read-only (docs/ci.md). */
export function scanHint(portal: Portal): (status: number) => string | undefined {
  return (status) =>
    status === 403 && portal.bearer?.kind === "api_key"
      ? `${describeBearer(portal.bearer)}: scanning needs a read-write key of the project or its team; a read-only key is enough for gate, findings, components and exports`
      : undefined;
}
