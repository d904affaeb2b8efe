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
const REDACT_PATHS = SECRET_FIELDS.flatMap((f) => [`${f}`, `*.${f}`, `*.*.${f}`, `req.headers["${f}"]`]);

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
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    mixin() {
      const requestId = currentRequestId();
      return requestId ? { request_id: requestId } : {};
    },
    formatters: { level: (label) => ({ level: label }) },
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
  return destination ? pino(options, destination) : pino(options);
}
