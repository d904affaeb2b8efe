// Problems cross service boundaries as Connect errors carrying a sca.common.v1.Problem detail, so the
// edge answers exactly what the owning service decided. Errors without the detail map by code.
// The problem's response headers (Retry-After, WWW-Authenticate) travel beside it in the error's metadata, under
// one binary key holding their JSON, so names keep their spelling.
import { create, type JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError, decodeBinaryHeader, encodeBinaryHeader } from "@connectrpc/connect";
import { ProblemSchema } from "@sca/proto/sca/common/v1/problem_pb.ts";
import type { ProblemCode } from "./problem-codes.ts";
import { ProblemError } from "./problem-error.ts";

const CODE_FOR_STATUS: Record<number, Code> = {
  400: Code.InvalidArgument,
  401: Code.Unauthenticated,
  403: Code.PermissionDenied,
  404: Code.NotFound,
  409: Code.AlreadyExists,
  412: Code.FailedPrecondition,
  413: Code.ResourceExhausted,
  422: Code.InvalidArgument,
  429: Code.ResourceExhausted,
  501: Code.Unimplemented,
  502: Code.Unavailable,
  503: Code.Unavailable,
  504: Code.DeadlineExceeded,
};

const STATUS_FOR_CODE: Partial<Record<Code, number>> = {
  [Code.InvalidArgument]: 422,
  [Code.Unauthenticated]: 401,
  [Code.PermissionDenied]: 403,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.Aborted]: 409,
  [Code.FailedPrecondition]: 412,
  [Code.ResourceExhausted]: 429,
  [Code.Unimplemented]: 501,
  [Code.Unavailable]: 503,
  [Code.DeadlineExceeded]: 504,
};

/** The metadata key of a problem's headers; `-bin`: gRPC carries the value base64-encoded. */
const PROBLEM_HEADERS_KEY = "sca-problem-headers-bin";

export function httpStatusForCode(code: Code): number {
  return STATUS_FOR_CODE[code] ?? 500;
}

export function toConnectError(problem: ProblemError<string>): ConnectError {
  const { status, code, title, detail, typeUri, extensions, violations, headers } = problem.init;
  const detailMessage = create(ProblemSchema, {
    status,
    code: code ?? "",
    title: title ?? "",
    detail,
    typeUri: typeUri ?? "",
    extensions: extensions as JsonObject | undefined,
    violations: violations ?? [],
  });
  const metadata =
    headers && Object.keys(headers).length
      ? { [PROBLEM_HEADERS_KEY]: encodeBinaryHeader(JSON.stringify(headers)) }
      : undefined;
  return new ConnectError(detail, CODE_FOR_STATUS[status] ?? Code.Internal, metadata, [
    { desc: ProblemSchema, value: detailMessage },
  ]);
}

/**
 * The problem a failed call stands for. Internal errors without a Problem detail become a bare 500 or 503
 * whose detail says nothing of the cause: the cause is logged, never answered.
 */
export function fromConnectError(err: ConnectError): ProblemError {
  const [detail] = err.findDetails(ProblemSchema);
  if (detail) {
    return new ProblemError({
      status: detail.status,
      // The one way a code travels between services: the raiser took it from the closed set.
      code: (detail.code || undefined) as ProblemCode | undefined,
      title: detail.title || undefined,
      detail: detail.detail,
      typeUri: detail.typeUri || undefined,
      extensions: detail.extensions,
      violations: detail.violations.map((v) => ({ path: v.path, message: v.message })),
      headers: problemHeadersOf(err.metadata),
    });
  }
  const status = httpStatusForCode(err.code);
  if (status >= 500) {
    return new ProblemError({
      status,
      detail: status === 503 ? "A backend service is unavailable; try again shortly." : "An unexpected error occurred.",
    });
  }
  return new ProblemError({ status, detail: err.rawMessage });
}

/** The headers a problem sent along, or undefined when there are none (or they cannot be read). */
function problemHeadersOf(metadata: Headers): Record<string, string> | undefined {
  // gRPC may repeat a trailers-only answer's fields among the headers; base64 has no comma, so take the first.
  const raw = metadata.get(PROBLEM_HEADERS_KEY)?.split(",")[0]?.trim();
  if (!raw) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(decodeBinaryHeader(raw)));
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const entries = Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === "string");
  return entries.length ? Object.fromEntries(entries) : undefined;
}
