// Authentication at the edge (ADR 0002). The bearer goes to identity's AccessService.Authenticate (an API key's
// answer, and an access token's per session, come from the Redis caches while identity allows it: api-key-answers.ts,
// access-answers.ts); the caller token identity answers is verified
// here and attached to the request, and the route layer hands it to the handler as `call`, so handlers call
// services as the caller.
// Routes declare what they need (`auth` in api/route.ts); the check runs before the body is read or validated,
// so an anonymous probe learns nothing from validation errors. Choices: docs/gateway-authentication.md.
import type { Request, RequestHandler } from "express";
import { Code, ConnectError, createContextValues, type CallOptions, type Client } from "@connectrpc/connect";
import { fromConnectError, ProblemError } from "@sca/problem";
import type { ClientAddress } from "@sca/proto/sca/common/v1/client_address_pb.ts";
import type { AccessService } from "@sca/proto/sca/identity/v1/access_pb.ts";
import { callerTokenKey, isSuperAdmin, verifyCallerToken, type Caller } from "@sca/rpc";
import { notFoundProblem } from "../api/route-registry.ts";
import type { AuthNeed, RouteAuth } from "../api/route.ts";
import type { AccessAnswers, AccessAnswerSlot } from "./access-answers.ts";
import type { ApiKeyAnswers } from "./api-key-answers.ts";
import { clientOf } from "./client-address.ts";

export interface Authenticated {
  caller: Caller;
  /** The signed caller token, forwarded to services in x-sca-caller. */
  token: string;
}

export interface AuthenticatorDeps {
  access: Pick<Client<typeof AccessService>, "authenticate">;
  answers: ApiKeyAnswers;
  /** Cached access-token answers; absent: every access token asks identity. */
  accessAnswers?: AccessAnswers;
  secretKey: string;
}

export interface Authenticator {
  /** The caller the bearer stands for; a 401 problem when it stands for nobody. */
  resolve(bearer: string, client: Pick<ClientAddress, "ip" | "userAgent">): Promise<Authenticated>;
  /**
   * The `auth` of a route admitting callers that meet `need`. `admitEndedSession`: an access token whose session
   * ended (signed out) is admitted without a caller (`call` carries none): logout's own idempotence.
   */
  route(need: AuthNeed, opts?: { admitEndedSession?: boolean }): RouteAuth;
}

const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
// Far above any access token or API key; longer bearers are refused without asking identity.
const MAX_BEARER_LENGTH = 4096;

const attached = new WeakMap<Request, Authenticated>();
const endedSessions = new WeakSet<Request>();

/** The caller of an authenticated route. */
export function authenticatedOf(req: Request): Authenticated {
  const found = attached.get(req);
  // Only reachable from a route that forgot to declare `auth`: a bug, not a client error.
  if (!found) throw new Error(`${req.method} ${req.path} reads the caller but declares no auth`);
  return found;
}

/** Call options that make a service call as the request's caller (none for an admitted ended session). */
function callOptionsOf(req: Request): CallOptions {
  if (endedSessions.has(req)) return {};
  return { contextValues: createContextValues().set(callerTokenKey, authenticatedOf(req).token) };
}

/** Whether the request was admitted with the bearer of a session that ended (routes with `admitEndedSession`). */
export function sessionEndedOf(req: Request): boolean {
  return endedSessions.has(req);
}

/** The 401 of a valid access token whose account is deactivated or gone: rendered as any 401, told apart by WebSockets. */
export class InactiveAccountProblem extends ProblemError {}

/** The 401 of a valid access token whose session ended (logout, reuse, reset, deactivation). */
export class EndedSessionProblem extends ProblemError {}

function unauthorized(detail: string, invalidToken: boolean): ProblemError {
  return new ProblemError({
    status: 401,
    code: "unauthorized",
    detail,
    // RFC 6750 §3: a missing credential gets the bare challenge; a rejected one names the error.
    headers: { "WWW-Authenticate": invalidToken ? 'Bearer error="invalid_token"' : "Bearer" },
  });
}

/** The credential of `Authorization: Bearer <token>`: undefined when the header is absent, null when malformed. */
export function bearerOf(header: string | undefined): string | undefined | null {
  if (header === undefined) return undefined;
  const m = /^Bearer +(\S+) *$/i.exec(header);
  return m && m[1]!.length <= MAX_BEARER_LENGTH ? m[1]! : null;
}

export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  async function resolve(bearer: string, client: Pick<ClientAddress, "ip" | "userAgent">): Promise<Authenticated> {
    const address = { ip: client.ip, userAgent: client.userAgent };
    let cached: string | null = null;
    let slot: AccessAnswerSlot | null = null;
    if (bearer.startsWith("tos_")) {
      cached = await deps.answers.read(bearer);
    } else if (deps.accessAnswers) {
      const read = await deps.accessAnswers.read(bearer, address);
      if (read.hit) cached = read.callerToken;
      else slot = read.slot;
    }
    if (cached) {
      try {
        return { caller: await verifyCallerToken(cached, deps.secretKey), token: cached };
      } catch {
        // Expired between write and read, or written under another key: ask identity.
      }
    }
    let answer;
    try {
      answer = await deps.access.authenticate({ bearer, client });
    } catch (err) {
      if (err instanceof ConnectError && err.code === Code.Unauthenticated) {
        const { init } = unauthorized("The bearer credential is invalid or expired.", true);
        const code = fromConnectError(err).init.code;
        if (code === "account_inactive") throw new InactiveAccountProblem(init);
        if (code === "session_ended") throw new EndedSessionProblem(init);
        throw new ProblemError(init);
      }
      throw err;
    }
    // A token identity signed that does not verify here means the two disagree on SECRET_KEY: a fault, not a 401.
    const caller = await verifyCallerToken(answer.callerToken, deps.secretKey);
    if (answer.cacheSeconds > 0) {
      if (slot) await deps.accessAnswers!.write(slot, bearer, address, answer.callerToken, answer.cacheSeconds);
      else await deps.answers.write(bearer, answer.callerToken, answer.cacheSeconds);
    }
    return { caller, token: answer.callerToken };
  }

  function enforce(need: AuthNeed, admitEndedSession: boolean): RequestHandler {
    return async (req, _res, next) => {
      const bearer = bearerOf(req.get("authorization"));
      if (bearer === undefined) throw unauthorized("A bearer credential is required.", false);
      if (bearer === null) throw unauthorized("The Authorization header is not a bearer credential.", true);
      let authenticated: Authenticated;
      try {
        authenticated = await resolve(bearer, clientOf(req));
      } catch (err) {
        if (!(admitEndedSession && err instanceof EndedSessionProblem)) throw err;
        endedSessions.add(req);
        next();
        return;
      }
      const { caller } = authenticated;
      // The admin surface does not exist for anyone else (API keys included): the answer of an unknown path.
      if (need === "super_admin" && !isSuperAdmin(caller)) throw notFoundProblem(req.path);
      if (caller.api_key?.permission_breadth === "read_only" && MUTATIONS.has(req.method)) {
        throw ProblemError.forbidden("This API key is read-only: it cannot change anything.");
      }
      attached.set(req, authenticated);
      next();
    };
  }

  return {
    resolve,
    route: (need, opts = {}) => ({
      need,
      enforce: enforce(need, opts.admitEndedSession === true),
      callOptions: callOptionsOf,
    }),
  };
}
