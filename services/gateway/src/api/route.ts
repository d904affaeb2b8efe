// A route is declared once: method, path template, documentation, request schemas, responses and handler.
// RouteRegistry mounts it on express (validation -> 422 problem) and adds it to the OpenAPI document.
import type { CallOptions } from "@connectrpc/connect";
import type { Request, RequestHandler, Response } from "express";
import type { z } from "zod";
import type { ZodObjectInput } from "zod-openapi";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

export interface ResponseSpec {
  description: string;
  /** The body; omitted for an empty answer (204, a redirect). */
  schema?: z.ZodType;
  /** Defaults to application/json. */
  contentType?: string;
  /**
   * For an answer in one of several media types (the handler sends the right one as its Content-Type header): one
   * schema per media type, for the document. Takes the place of `schema` and `contentType`.
   */
  content?: Record<string, z.ZodType>;
  /**
   * The handler builds the body field by field from the schema's own fields (a test of the route holds it to the
   * schema), so the reply is sent as it is instead of being parsed by the schema again: for a hot list whose rows
   * would otherwise be copied and checked on every request. Its body may be a SerialisedJson. Off by default.
   */
  shaped?: true;
  /** Response headers, for the document. */
  headers?: ZodObjectInput;
  /** An error answer: thrown as a ProblemError, never returned (see problemResponse). */
  problem?: true;
  /**
   * A streamed answer (a CSV export, an SBOM): the handler returns `stream`, chunks of text or bytes, instead of
   * `body`. The status and headers are sent with the first chunk, so an error before it is still a problem document.
   */
  stream?: true;
}

export type ResponseSpecs = Record<number, ResponseSpec>;

export interface RequestSpec<P, Q, B> {
  /** Path parameters; names match the `{name}` segments of the path. */
  params?: P;
  /** Query string; values arrive as strings (or arrays of strings when repeated), so numbers use z.coerce. */
  query?: Q;
  /** JSON body. */
  body?: B;
  /**
   * A body the handler streams itself from `req` (uploads): never read or parsed by the registry, documented with
   * one schema per accepted media type. Not combined with `body`.
   */
  streamedBody?: { description: string; content: Record<string, z.ZodType> };
}

type Parsed<S, Otherwise> = S extends z.ZodType ? z.output<S> : Otherwise;

export interface HandlerInput<P, Q, B> {
  params: Parsed<P, Record<string, string>>;
  query: Parsed<Q, Record<string, unknown>>;
  body: Parsed<B, undefined>;
  /**
   * Connect call options that make a service call as the request's caller (the caller token, bound by the route's
   * `auth`): `ctx.clients.identity.directory.getTeam({ ... }, call)`. Empty on a route without `auth`.
   */
  call: CallOptions;
  req: Request;
  /** For what a reply does not carry (cookies). The route layer sends the reply. */
  res: Response;
}

/**
 * A JSON body already written out (a `shaped` reply whose rows a service serialised): sent as these parts, one after
 * the other (a page's rows are not copied again to join them), which together must be what the response schema
 * describes.
 */
export class SerialisedJson {
  readonly parts: readonly Uint8Array[];
  constructor(...parts: Uint8Array[]) {
    this.parts = parts;
  }
}

type ReplyFor<S extends number, Spec> = Spec extends { problem: true }
  ? never
  : Spec extends { stream: true }
    ? { status: S; stream: AsyncIterable<string | Uint8Array>; headers?: Record<string, string> }
    : Spec extends { schema: infer Z extends z.ZodType; shaped: true }
      ? { status: S; body: z.input<Z> | SerialisedJson; headers?: Record<string, string> }
      : Spec extends { schema: infer Z extends z.ZodType }
        ? { status: S; body: z.input<Z>; headers?: Record<string, string> }
        : { status: S; body?: undefined; headers?: Record<string, string> };

/** What a handler returns: one of the route's declared non-error statuses with a body of its schema. */
export type Reply<R extends ResponseSpecs> = { [S in keyof R]: S extends number ? ReplyFor<S, R[S]> : never }[keyof R];

/** Who may call a route: any authenticated caller, or only a person holding super_admin. */
export type AuthNeed = "caller" | "super_admin";

/**
 * Built by src/http/authenticate.ts; `enforce` runs before the route's own middleware, body and validation, and
 * `callOptions` gives the handler's `call` for the caller it admitted.
 */
export interface RouteAuth {
  need: AuthNeed;
  enforce: RequestHandler;
  callOptions(req: Request): CallOptions;
}

export interface RouteSpec<P, Q, B, R extends ResponseSpecs> {
  method: HttpMethod;
  /** OpenAPI template of the backend path (no /api prefix), e.g. /v1/projects/{project_id}. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  operationId?: string;
  request?: RequestSpec<P, Q, B>;
  responses: R;
  /** Absent: anonymous callers are served. */
  auth?: RouteAuth;
  /** Run before the body is read and validated: authentication, rate limits. */
  middleware?: RequestHandler[];
  /** Cap on the JSON body; DEFAULT_BODY_LIMIT_BYTES unless given. */
  bodyLimitBytes?: number;
  // NoInfer: R comes from `responses` alone, so replies are checked against it (literal statuses stay literal).
  handler(input: HandlerInput<P, Q, B>): NoInfer<Promise<Reply<R>> | Reply<R>>;
}

export interface AnyReply {
  status: number;
  body?: unknown;
  stream?: AsyncIterable<string | Uint8Array>;
  headers?: Record<string, string>;
}

/** A route with its types erased, as the registry keeps it. */
export interface Route extends Omit<
  RouteSpec<ZodObjectInput | undefined, ZodObjectInput | undefined, z.ZodType | undefined, ResponseSpecs>,
  "handler"
> {
  handler(input: {
    params: unknown;
    query: unknown;
    body: unknown;
    call: CallOptions;
    req: Request;
    res: Response;
  }): Promise<AnyReply> | AnyReply;
}

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** Type-checks a route's handler against its own schemas and erases the types for the registry. */
export function defineRoute<
  P extends ZodObjectInput | undefined = undefined,
  Q extends ZodObjectInput | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  const R extends ResponseSpecs = ResponseSpecs,
>(spec: RouteSpec<P, Q, B, R>): Route {
  // The spec hides the whole admin surface from everyone but super_admin; a route cannot opt out by omission.
  if (spec.path.startsWith("/v1/admin/") && spec.auth?.need !== "super_admin") {
    throw new Error(`${spec.method.toUpperCase()} ${spec.path} is an admin route and must declare auth super_admin`);
  }
  return {
    ...spec,
    middleware: spec.auth ? [spec.auth.enforce, ...(spec.middleware ?? [])] : spec.middleware,
    // The registry parsed params, query and body with exactly these schemas before calling.
    handler: (input) => spec.handler(input as HandlerInput<P, Q, B>),
  };
}
