// Problems cross service boundaries as Connect errors carrying a sca.common.v1.Problem detail, so the
// edge answers exactly what the owning service decided. Errors without the detail map by code.
import { create, type JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ProblemSchema } from "@sca/proto/sca/common/v1/problem_pb.ts";
import { ProblemError } from "./problem-error.ts";

const CODE_FOR_STATUS: Record<number, Code> = {
  400: Code.InvalidArgument, 401: Code.Unauthenticated, 403: Code.PermissionDenied, 404: Code.NotFound,
  409: Code.AlreadyExists, 412: Code.FailedPrecondition, 413: Code.ResourceExhausted, 422: Code.InvalidArgument,
  429: Code.ResourceExhausted, 501: Code.Unimplemented, 502: Code.Unavailable, 503: Code.Unavailable, 504: Code.DeadlineExceeded,
};

const STATUS_FOR_CODE: Partial<Record<Code, number>> = {
  [Code.InvalidArgument]: 422, [Code.Unauthenticated]: 401, [Code.PermissionDenied]: 403, [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409, [Code.Aborted]: 409, [Code.FailedPrecondition]: 412, [Code.ResourceExhausted]: 429,
  [Code.Unimplemented]: 501, [Code.Unavailable]: 503, [Code.DeadlineExceeded]: 504,
};

export function httpStatusForCode(code: Code): number {
  return STATUS_FOR_CODE[code] ?? 500;
}

export function toConnectError(problem: ProblemError): ConnectError {
  const { status, code, title, detail, typeUri, extensions, violations } = problem.init;
  const detailMessage = create(ProblemSchema, {
    status,
    code: code ?? "",
    title: title ?? "",
    detail,
    typeUri: typeUri ?? "",
    extensions: extensions as JsonObject | undefined,
    violations: violations ?? [],
  });
  return new ConnectError(detail, CODE_FOR_STATUS[status] ?? Code.Internal, undefined, [
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
      code: detail.code || undefined,
      title: detail.title || undefined,
      detail: detail.detail,
      typeUri: detail.typeUri || undefined,
      extensions: detail.extensions,
      violations: detail.violations.map((v) => ({ path: v.path, message: v.message })),
    });
  }
  const status = httpStatusForCode(err.code);
  if (status >= 500) {
    return new ProblemError({ status, detail: status === 503 ? "A backend service is unavailable; try again shortly." : "An unexpected error occurred." });
  }
  return new ProblemError({ status, detail: err.rawMessage });
}
