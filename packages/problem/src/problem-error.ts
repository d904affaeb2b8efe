// The one way to describe an error: a problem document (RFC 7807 / 9457). Services throw ProblemError;
// the edge renders it. Titles and details are English, whatever the caller's language.
import { STATUS_PROBLEM_CODES, type ProblemCode } from "./problem-codes.ts";

export interface FieldViolation {
  path: string;
  message: string;
}

/** `Code`: the closed set the code comes from, the API's (problem-codes.ts) unless no client is ever answered with it. */
export interface ProblemInit<Code extends string = ProblemCode> {
  status: number;
  /**
   * Short machine code (snake_case); the type URI is `{base_url}/problems/{code}` unless typeUri is given. Absent:
   * the status's own code (STATUS_PROBLEM_CODES), so every problem carries a code and a type under `/problems/`.
   */
  code?: Code;
  title?: string;
  detail: string;
  /** A type URI fixed by the spec that is not under `{base_url}/problems/` (e.g. a urn). */
  typeUri?: string;
  extensions?: Record<string, unknown>;
  violations?: FieldViolation[];
  /** Response headers that belong to this answer (e.g. Retry-After). */
  headers?: Record<string, string>;
}

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  [extension: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  412: "Precondition Failed",
  408: "Request Timeout",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** The code a problem of `status` carries when it names none. */
export function defaultProblemCode(status: number): ProblemCode {
  const codes: Partial<Record<number, ProblemCode>> = STATUS_PROBLEM_CODES;
  return codes[status] ?? (status >= 500 ? "internal_error" : "bad_request");
}

// Extensions may never shadow the standard members.
const RESERVED = new Set(["type", "title", "status", "detail", "instance"]);

export function problemTypeUri(baseUrl: string, code: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/problems/${code}`;
}

export class ProblemError<Code extends string = ProblemCode> extends Error {
  readonly init: ProblemInit<Code>;

  // NoInfer: a code outside the set is an error, never a set of its own inferred from the literal.
  constructor(init: ProblemInit<NoInfer<Code>>) {
    super(init.detail);
    this.name = "ProblemError";
    this.init = init;
  }

  get status(): number {
    return this.init.status;
  }

  toDocument(baseUrl: string, instance: string): ProblemDocument {
    const { status, typeUri, detail, extensions, violations } = this.init;
    const code = this.init.code || defaultProblemCode(status);
    const doc: ProblemDocument = {
      type: typeUri ?? problemTypeUri(baseUrl, code),
      title: this.init.title ?? TITLES[status] ?? "Error",
      status,
      detail,
      instance,
    };
    doc.code = code;
    for (const [k, v] of Object.entries(extensions ?? {})) if (!RESERVED.has(k)) doc[k] = v;
    if (violations?.length) doc.errors = violations;
    return doc;
  }

  static notFound(detail = "The resource does not exist or is not visible to you."): ProblemError {
    return new ProblemError({ status: 404, code: "not_found", detail });
  }

  static unauthorized(detail = "A valid credential is required."): ProblemError {
    return new ProblemError({ status: 401, code: "unauthorized", detail });
  }

  static forbidden(detail = "Your role does not allow this action."): ProblemError {
    return new ProblemError({ status: 403, code: "forbidden", detail });
  }

  static validation(violations: FieldViolation[], detail?: string): ProblemError {
    return new ProblemError({
      status: 422,
      code: "validation_error",
      detail: detail ?? violations.map((v) => `${v.path}: ${v.message}`).join("; "),
      violations,
    });
  }
}
