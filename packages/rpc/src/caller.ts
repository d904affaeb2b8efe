// The caller's identity, resolved once by the gateway and carried to services in a short-lived signed
// internal token. Services read it from the handler context and authorize their own resources with it.
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from "node:crypto";
import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import { LRUCache } from "lru-cache";
import { ProblemError } from "@sca/problem";

export const CALLER_HEADER = "x-sca-caller";

export type Role = "super_admin" | "group_admin" | "team_admin" | "developer" | "viewer";

export interface Membership {
  team_id: string;
  organization_id: string | null;
  role: Role;
}

export interface ApiKeyGrant {
  scope: "org" | "team" | "project";
  organization_id: string | null;
  team_id: string | null;
  project_id: string | null;
  permission_breadth: "read_only" | "read_write";
}

export interface Caller {
  kind: "anonymous" | "user" | "api_key" | "service";
  /** kind service: the calling service's name (e.g. "scanner-runner"); null otherwise. */
  service?: string | null;
  user_id: string | null;
  email: string | null;
  is_superuser: boolean;
  /** Effective memberships (cascaded to subgroups when the deployment says so). */
  memberships: Membership[];
  api_key_id: string | null;
  api_key: ApiKeyGrant | null;
  ip: string | null;
  user_agent: string | null;
}

export const ANONYMOUS: Caller = {
  kind: "anonymous",
  user_id: null,
  email: null,
  is_superuser: false,
  memberships: [],
  api_key_id: null,
  api_key: null,
  ip: null,
  user_agent: null,
};

export const callerKey = createContextKey<Caller>(ANONYMOUS, { description: "the authenticated caller" });

const ISSUER = "sca-gateway";
const AUDIENCE = "sca-services";
const TTL_SECONDS = 60;

// A key of its own, derived from SECRET_KEY, so an internal token can never pass as an access token. Derived once
// per secret: every request verifies a caller token, in the gateway and again in each service it calls. A KeyObject,
// not bytes: createHmac turns bytes into a KeyObject on every call, which costs it about four times the MAC itself.
const internalKeys = new Map<string, KeyObject>();
function internalKey(secretKey: string): KeyObject {
  let key = internalKeys.get(secretKey);
  if (!key) {
    key = createSecretKey(createHmac("sha256", secretKey).update("sca/internal-caller-token/v1").digest());
    internalKeys.set(secretKey, key);
  }
  return key;
}

const TOKEN_HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "sca-caller+jwt" })).toString("base64url");

/**
 * A caller token: a compact HS256 JWT (header typ sca-caller+jwt, claims caller, iss, aud, iat, exp), signed with
 * node:crypto. jose's SignJWT signs through WebCrypto, an asynchronous job per token that showed in every request's
 * profile (the gateway signs one per request, policy and projects one per onward call); the token is the same, and
 * jose's jwtVerify accepts it (packages/rpc/test/server.test.ts).
 */
export function signCallerToken(caller: Caller, secretKey: string): Promise<string> {
  return Promise.resolve(callerToken(caller, secretKey));
}

/** signCallerToken's token, signed at once (the test kit signs one per call this way). */
export function callerToken(caller: Caller, secretKey: string): string {
  const iat = Math.floor(Date.now() / 1000);
  const claims = { caller, iss: ISSUER, aud: AUDIENCE, iat, exp: iat + TTL_SECONDS };
  const input = `${TOKEN_HEADER}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  const signature = createHmac("sha256", internalKey(secretKey)).update(input).digest("base64url");
  return `${input}.${signature}`;
}

/**
 * A token a service signs for its own calls to another service (no person behind them), e.g. the scanner-runner
 * calling InventoryService.IngestInventory. Short-lived like every caller token: sign one per call.
 */
export function serviceCallerToken(service: string, secretKey: string): Promise<string> {
  return signCallerToken({ ...ANONYMOUS, kind: "service", service }, secretKey);
}

const invalidCallerToken = () => new Error("invalid caller token");

/**
 * The caller of a valid caller token; throws for anything else (another algorithm or type, a critical header,
 * another key, issuer or audience, expired, not yet valid). What jose's jwtVerify checked, done synchronously
 * with node:crypto: jose imports the key into WebCrypto and verifies asynchronously on every call, which was a
 * visible share of each request's CPU (git log -p docs/benchmarks.md).
 */
export function verifyCallerToken(token: string, secretKey: string): Promise<Caller> {
  try {
    return Promise.resolve(rememberedCallerOf(token, secretKey) ?? callerOfToken(token, secretKey));
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : invalidCallerToken());
  }
}

interface VerifiedToken {
  secretKey: string;
  caller: Caller;
  exp: number;
  nbf: number | undefined;
}

// Tokens that verified: the same bytes under the same key verify the same way again, so a token seen before has only
// its clock checked. The gateway reuses a caller's token for up to 30 s (identity's cache_seconds), and every request
// verifies it in the gateway and in each service it reaches (git log -p docs/benchmarks.md).
// Bounded by bytes (a caller with many memberships weighs more): the token and the caller as UTF-16, plus the entry.
const verifiedTokens = new LRUCache<string, VerifiedToken>({
  maxSize: 4 * 1024 ** 2,
  sizeCalculation: (v, token) => 2 * (token.length + v.secretKey.length + JSON.stringify(v.caller).length) + 256,
});

function rememberedCallerOf(token: string, secretKey: string): Caller | undefined {
  const seen = verifiedTokens.get(token);
  if (!seen || seen.secretKey !== secretKey) return undefined;
  const now = Math.floor(Date.now() / 1000);
  if (seen.exp <= now || (seen.nbf !== undefined && seen.nbf > now)) {
    verifiedTokens.delete(token);
    throw invalidCallerToken();
  }
  return seen.caller;
}

/** Frozen: one caller object is handed to every request carrying the same token. */
function frozenCaller(caller: Caller): Caller {
  for (const m of caller.memberships ?? []) Object.freeze(m);
  Object.freeze(caller.memberships);
  if (caller.api_key) Object.freeze(caller.api_key);
  return Object.freeze(caller);
}

function callerOfToken(token: string, secretKey: string): Caller {
  const parts = token.split(".");
  if (parts.length !== 3) throw invalidCallerToken();
  const [header, payload, signature] = parts as [string, string, string];
  const expected = createHmac("sha256", internalKey(secretKey)).update(`${header}.${payload}`).digest();
  const actual = Buffer.from(signature, "base64url");
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) throw invalidCallerToken();
  let h: Record<string, unknown>;
  let c: Record<string, unknown>;
  try {
    h = JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as Record<string, unknown>;
    c = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    throw invalidCallerToken();
  }
  if (h.alg !== "HS256" || h.typ !== "sca-caller+jwt" || h.crit !== undefined || h.b64 !== undefined)
    throw invalidCallerToken();
  const now = Math.floor(Date.now() / 1000);
  const audience = Array.isArray(c.aud) ? c.aud : [c.aud];
  if (
    c.iss !== ISSUER ||
    !audience.includes(AUDIENCE) ||
    typeof c.exp !== "number" ||
    c.exp <= now ||
    (c.nbf !== undefined && (typeof c.nbf !== "number" || c.nbf > now)) ||
    typeof c.caller !== "object" ||
    c.caller === null
  )
    throw invalidCallerToken();
  const caller = frozenCaller(c.caller as Caller);
  verifiedTokens.set(token, { secretKey, caller, exp: c.exp, nbf: c.nbf });
  return caller;
}

// Guards: each answers the caller a handler may serve or throws the problem the handler chose. They hold who the
// caller is, not what a role may do there: those rules stay in the service's domain/.

/** The caller of a handler, or 401 when the gateway vouched for nobody. */
export function requireCaller(ctx: HandlerContext): Caller {
  const caller = ctx.values.get(callerKey);
  if (caller.kind === "anonymous") throw ProblemError.unauthorized();
  return caller;
}

/** A signed-in person: a user caller, never an API key. */
export type Person = Caller & { kind: "user"; user_id: string };

export function isPerson(caller: Caller): caller is Person {
  return caller.kind === "user" && !!caller.user_id;
}

/** A person whose account is super_admin (an API key never is one, whatever its issuer). */
export function isSuperAdmin(caller: Caller): caller is Person {
  return isPerson(caller) && caller.is_superuser;
}

/**
 * The person calling; 401 for nobody, else `refused` (403 unless the handler says otherwise) for an API key.
 * Handlers name why in the refusal, e.g. "API keys are managed by people, not by other API keys."
 */
export function requirePerson(
  ctx: HandlerContext,
  refused: () => ProblemError = () => ProblemError.forbidden("This action is for signed-in people, not API keys."),
): Person {
  const caller = requireCaller(ctx);
  if (!isPerson(caller)) throw refused();
  return caller;
}

/**
 * The super_admin calling; 401 for nobody, else `refused` for anyone else: 404 unless the handler says otherwise,
 * since the admin surface is not shown to those who may not use it.
 */
export function requireSuperAdmin(
  ctx: HandlerContext,
  refused: () => ProblemError = () => ProblemError.notFound(),
): Person {
  const caller = requireCaller(ctx);
  if (!isSuperAdmin(caller)) throw refused();
  return caller;
}

/** The service named `service` calling; 401 for nobody, 403 for anyone else (people and API keys included). */
export function requireService(ctx: HandlerContext, service: string): Caller & { kind: "service"; service: string } {
  const caller = requireCaller(ctx);
  if (caller.kind !== "service" || caller.service !== service)
    throw ProblemError.forbidden(`This method is for the ${service} service only.`);
  return caller as Caller & { kind: "service"; service: string };
}
