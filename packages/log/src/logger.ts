import { pino, type DestinationStream, type Logger, type LoggerOptions } from "pino";
import { currentRequestId } from "./request-context.ts";

export type { Logger };

const LEVELS: Record<string, string> = { DEBUG: "debug", INFO: "info", WARNING: "warn", ERROR: "error" };

// Field names whose values are never written, wherever they sit in a logged object.
const SECRET_FIELDS = [
  "password",
  "new_password",
  "current_password",
  "token",
  "access_token",
  "refresh_token",
  "mfa_token",
  "id_token",
  "raw_key",
  "secret",
  "client_secret",
  "api_token",
  "private_key",
  "webhook_secret",
  "code",
  "authorization",
  "cookie",
  "set-cookie",
  "x-scm-token",
  "x-hub-signature-256",
  "SECRET_KEY",
  "DATABASE_URL",
  "REDIS_URL",
];
const SECRET_FIELD_SET = new Set(SECRET_FIELDS);
const CENSOR = "[redacted]";
// Deeper than anything a log line holds; a cycle or a huge structure stops here rather than walking on.
const MAX_REDACT_DEPTH = 8;

// Plain objects (null-prototype ones too) and arrays are walked; anything else (an Error, a Date, a Buffer) is left to
// its serializer.
function isPlain(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null || Array.isArray(v);
}

/**
 * The logged object with every secret field's value replaced, at any depth of plain objects and arrays; the object
 * itself when it holds none (the common case costs a walk and no copy). Replaces pino's `redact` paths, whose
 * wildcard matching cost about 0.13 ms on every line (git log -p docs/benchmarks.md).
 */
export function redactSecretFields<T>(value: T, depth = 0): T {
  if (!isPlain(value) || depth > MAX_REDACT_DEPTH) return value;
  let copy: Record<string, unknown> | unknown[] | undefined;
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    const redacted = SECRET_FIELD_SET.has(key) ? CENSOR : redactSecretFields(field, depth + 1);
    if (redacted !== field) {
      copy ??= Array.isArray(value)
        ? [...value]
        : Object.assign(Object.create(Object.getPrototypeOf(value) as object | null) as object, value);
      (copy as Record<string, unknown>)[key] = redacted;
    }
  }
  return (copy ?? value) as T;
}

// Values that look like credentials are masked even inside free text (defence in depth).
const SECRET_PATTERNS: RegExp[] = [
  /\btos_[A-Za-z0-9]+_[A-Za-z0-9_-]+/g, // API keys
  /\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, // JWTs
  /\b(Bearer)\s+[A-Za-z0-9._~+/-]+=*/gi,
  /(postgres(?:ql)?|redis|rediss):\/\/[^:\s/]+:[^@\s]+@/gi, // credentials inside DSNs
];

export function scrubSecrets(text: string): string {
  return SECRET_PATTERNS.reduce(
    (s, re) =>
      s.replace(re, (m, scheme: string) =>
        /^(postgres|redis)/i.test(m)
          ? `${scheme}://[redacted]@`
          : /^bearer/i.test(m)
            ? "Bearer [redacted]"
            : "[redacted]",
      ),
    text,
  );
}

export function createLogger(service: string, level = "INFO", destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level: LEVELS[level.toUpperCase()] ?? "info",
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const requestId = currentRequestId();
      return requestId ? { request_id: requestId } : {};
    },
    formatters: { level: (label) => ({ level: label }), log: (object) => redactSecretFields(object) },
    hooks: {
      logMethod(args, method) {
        method.apply(
          this,
          args.map((a: unknown) => (typeof a === "string" ? scrubSecrets(a) : a)) as Parameters<typeof method>,
        );
      },
    },
    serializers: {
      err: (err: Error) => ({
        type: err.name,
        message: scrubSecrets(err.message),
        stack: err.stack ? scrubSecrets(err.stack) : undefined,
      }),
    },
  };
  // Lines are written on the calling thread, one write each: handed to the thread pool (pino's default) a line cost
  // a wake-up of a worker and one of the event loop after it (about a third of a gateway request's context switches),
  // and the lines still queued were lost when the process was killed.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: true }));
}
