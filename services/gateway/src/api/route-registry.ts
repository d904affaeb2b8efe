// Collects the routes of the gateway, mounts them on express and answers what no route took: 405 with Allow on
// a known path, 204 with Allow to a plain OPTIONS, 404 elsewhere. The OpenAPI document is built from `documented`.
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { ProblemError } from "@sca/problem";
import { jsonBody } from "../http/json-body.ts";
import { expressPath, templateMatcher } from "./path-template.ts";
import { parseRequest } from "./request-validation.ts";
import { DEFAULT_BODY_LIMIT_BYTES, SerialisedJson, type AnyReply, type Route } from "./route.ts";
import { setRouteTemplate } from "./route-template.ts";

interface Page {
  path: string;
  handlers: RequestHandler[];
}

interface KnownPath {
  match: (path: string) => Record<string, string> | undefined;
  methods: Set<string>;
}

export function notFoundProblem(path: string): ProblemError {
  return ProblemError.notFound(`No resource at ${path}.`);
}

export class RouteRegistry {
  private readonly routes: Route[] = [];
  private readonly pages: Page[] = [];
  private readonly known = new Map<string, KnownPath>();

  /** Adds documented API routes. */
  add(...routes: Route[]): this {
    for (const route of routes) {
      this.remember(route.path, route.method.toUpperCase());
      this.routes.push(route);
    }
    return this;
  }

  /** Adds an undocumented GET (and HEAD) endpoint: the docs pages and their assets. */
  addPage(path: string, ...handlers: RequestHandler[]): this {
    this.remember(path, "GET");
    this.pages.push({ path, handlers });
    return this;
  }

  get documented(): readonly Route[] {
    return this.routes;
  }

  /** Mounts every route and page, then the 404/405 answer for requests none of them took. */
  mount(app: Express): void {
    const router = express.Router();
    for (const route of this.routes) {
      const handlers: RequestHandler[] = [tagTemplate(route.path), ...(route.middleware ?? [])];
      if (route.request?.body) handlers.push(jsonBody(route.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES));
      handlers.push(runRoute(route));
      router[route.method](expressPath(route.path), ...handlers);
    }
    for (const page of this.pages) router.get(expressPath(page.path), tagTemplate(page.path), ...page.handlers);
    // Inside the router, so the router's own automatic OPTIONS answer never runs: one answer for all paths.
    router.use((req, res, next) => this.unmatched(req, res, next));
    app.use(router);
  }

  private remember(path: string, method: string): void {
    const known = this.known.get(path) ?? { match: templateMatcher(path), methods: new Set<string>() };
    if (known.methods.has(method)) throw new Error(`${method} ${path} is registered twice`);
    known.methods.add(method);
    this.known.set(path, known);
  }

  private unmatched(req: Request, res: Response, next: NextFunction): void {
    // Templates may overlap (`/v1/projects/export.csv` and `/v1/projects/{id}`): allow what any of them allows.
    const hits = [...this.known.entries()].filter(([, k]) => k.match(req.path) !== undefined);
    if (!hits.length) return next(notFoundProblem(req.path));
    setRouteTemplate(req, hits[0]![0]);
    const methods = new Set(hits.flatMap(([, k]) => [...k.methods]));
    const allowed = [...methods];
    if (methods.has("GET")) allowed.push("HEAD");
    allowed.push("OPTIONS");
    const allow = allowed.join(", ");
    if (req.method === "OPTIONS") {
      res.setHeader("Allow", allow);
      res.status(204).end();
      return;
    }
    // The path is known and the method allowed, yet nothing answered: a page declined (an unknown asset).
    if (allowed.includes(req.method)) return next(notFoundProblem(req.path));
    next(
      new ProblemError({
        status: 405,
        code: "method_not_allowed",
        detail: `${req.method} is not allowed on ${req.path}; allowed: ${allow}.`,
        headers: { Allow: allow },
      }),
    );
  }
}

function tagTemplate(template: string): RequestHandler {
  return (req, _res, next) => {
    setRouteTemplate(req, template);
    next();
  };
}

/**
 * The deadline of the service calls of a route that streams its answer: the bytes flow as fast as the service writes
 * and the client reads, so a 10,000-component export on a busy node outlasts a unary call's 10 s (and was cut short
 * mid-body). A client that leaves ends the stream (sendStream), so only a stalled download lives this long.
 */
const STREAMED_CALL_TIMEOUT_MS = 3_600_000;

function runRoute(route: Route): RequestHandler {
  const streamed = Object.values(route.responses).some((spec) => spec.stream);
  return async (req, res) => {
    const input = await parseRequest(route, req);
    // The caller's call options, bound once for the handler; a route without auth calls services anonymously.
    const call = { ...route.auth?.callOptions(req), ...(streamed ? { timeoutMs: STREAMED_CALL_TIMEOUT_MS } : {}) };
    const reply = await route.handler({ ...input, call, req, res });
    await sendReply(route, reply, res);
  };
}

async function sendReply(route: Route, reply: AnyReply, res: Response): Promise<void> {
  const spec = route.responses[reply.status];
  if (!spec || spec.problem)
    throw new Error(`${route.method.toUpperCase()} ${route.path} replied ${reply.status}, which it does not declare`);
  if (spec.stream) {
    await sendStream(reply, spec.contentType ?? "text/plain", res);
    return;
  }
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  res.status(reply.status);
  if (!spec.schema) {
    res.end();
    return;
  }
  if (spec.shaped && reply.body instanceof SerialisedJson) {
    const { parts } = reply.body;
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    const length = parts.reduce((sum, part) => sum + part.byteLength, 0);
    res.setHeader("Content-Length", length);
    // Corked, the head and every part leave in one write.
    res.cork();
    for (const part of parts) res.write(part);
    res.end();
    return;
  }
  // Parsing the reply with its schema drops every field the schema does not declare, so internal fields of a
  // service answer never leave the gateway by accident; a `shaped` reply was built from the schema's fields alone.
  const body: unknown = spec.shaped ? reply.body : spec.schema.parse(reply.body);
  const contentType = spec.contentType ?? "application/json";
  if (contentType === "application/json") {
    res.json(body);
    return;
  }
  if (!res.get("Content-Type")) res.type(contentType);
  res.send(body);
}

/** Resolves when the socket drains or the response closes, leaving no listener behind (a long download waits often). */
function drainedOrClosed(res: Response): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}

/**
 * Writes a streamed answer chunk by chunk, waiting for the socket to drain. Nothing is sent before the first chunk
 * is in hand, so an error up to then is still a problem document; after it, an error cuts the connection (the
 * client sees a truncated body, never a complete-looking one).
 */
async function sendStream(reply: AnyReply, contentType: string, res: Response): Promise<void> {
  if (!reply.stream) throw new Error("a streamed route replied without a stream");
  const chunks = reply.stream[Symbol.asyncIterator]();
  let next = await chunks.next();
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  res.status(reply.status);
  // A route answering in several media types names its own in the reply's headers.
  if (!res.get("Content-Type")) res.type(contentType);
  try {
    while (!next.done) {
      if (res.destroyed) {
        await chunks.return?.();
        return;
      }
      if (!res.write(next.value)) await drainedOrClosed(res);
      next = await chunks.next();
    }
    res.end();
  } catch (err) {
    res.destroy(err instanceof Error ? err : new Error(String(err)));
  }
}
