// Parsers for environment values. Each returns the typed value or throws a message naming the rule broken.
// `undefined` means the key is absent or empty: the parser decides whether that is allowed.

// Each factory also says what its parser accepts (`accepts`), for tools: the chart's values.schema.json types the
// values of its `env` map with it (scripts/config-reference.ts).

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * What a parser accepts, as a value after the loader's trim (absent or empty is the default, or refused where a value
 * is required). `outOfRange` / `otherwise`: what the parser does with a value it does not take as written instead of
 * refusing it. A `pattern` is a regular expression without flags, valid in JavaScript and JSON Schema, anchored at the
 * start (and at the end where it says all of the value).
 */
export type Accepts =
  | { type: "integer"; minimum?: number; maximum?: number; outOfRange?: "clamped" | "default" }
  | { type: "number"; minimum?: number; maximum?: number }
  | { type: "boolean"; true: readonly string[]; false: readonly string[]; otherwise?: boolean }
  | { type: "enum"; values: readonly string[]; caseInsensitive: boolean }
  | { type: "list"; items?: Accepts }
  | { type: "text"; required?: boolean; pattern?: string; summary?: string };

export type Parser<T> = ((raw: string | undefined, env: Env) => T) & { readonly accepts?: Accepts };

/** A parser with what it accepts; for a key's own parser too where its rule fits a pattern. */
export function described<T>(accepts: Accepts, parse: (raw: string | undefined, env: Env) => T): Parser<T> {
  return Object.assign(parse, { accepts });
}

/** `word` in any case, as a pattern: [Tt][Rr][Uu][Ee]. */
export function anyCase(word: string): string {
  return [...word]
    .map((c) => (c.toLowerCase() === c.toUpperCase() ? escaped(c) : `[${c.toUpperCase()}${c.toLowerCase()}]`))
    .join("");
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

const TRUE = ["true", "1", "yes", "on"];
const FALSE = ["false", "0", "no", "off"];

export function required(name = "a value"): Parser<string> {
  return described({ type: "text", required: true }, (raw) => {
    if (raw === undefined) throw new Error(`is required (${name})`);
    return raw;
  });
}

export function text(fallback: string): Parser<string> {
  return described({ type: "text" }, (raw) => raw ?? fallback);
}

export function optionalText(): Parser<string | undefined> {
  return described({ type: "text" }, (raw) => raw);
}

export function oneOf<const T extends string>(
  values: readonly T[],
  fallback: T,
  opts: { caseInsensitive?: boolean } = {},
): Parser<T> {
  return described({ type: "enum", values, caseInsensitive: opts.caseInsensitive ?? false }, (raw) => {
    if (raw === undefined) return fallback;
    const value = opts.caseInsensitive ? raw.toLowerCase() : raw;
    const hit = values.find((v) => (opts.caseInsensitive ? v.toLowerCase() : v) === value);
    if (!hit) throw new Error(`must be one of ${values.join(", ")}`);
    return hit;
  });
}

/** A strict boolean: anything but a recognised spelling stops the process. */
export function bool(fallback: boolean): Parser<boolean> {
  return described({ type: "boolean", true: TRUE, false: FALSE }, (raw) => {
    if (raw === undefined) return fallback;
    const v = raw.trim().toLowerCase();
    if (TRUE.includes(v)) return true;
    if (FALSE.includes(v)) return false;
    throw new Error("must be true or false");
  });
}

interface IntOptions {
  min?: number;
  max?: number;
  clamp?: boolean;
  fallbackOnInvalid?: boolean;
}

function bounded(value: number, fallback: number, opts: IntOptions): number {
  const { min = -Infinity, max = Infinity } = opts;
  if (value >= min && value <= max) return value;
  if (opts.clamp) return Math.min(max, Math.max(min, value));
  if (opts.fallbackOnInvalid) return fallback;
  throw new Error(`must be between ${min} and ${max}`);
}

/** The bounds of an int or num parser, as `accepts` gives them. */
function range(opts: IntOptions): { minimum?: number; maximum?: number } {
  return {
    ...(opts.min === undefined ? {} : { minimum: opts.min }),
    ...(opts.max === undefined ? {} : { maximum: opts.max }),
  };
}

export function int(fallback: number, opts: IntOptions = {}): Parser<number> {
  const outOfRange = opts.clamp ? "clamped" : opts.fallbackOnInvalid ? "default" : undefined;
  return described({ type: "integer", ...range(opts), ...(outOfRange ? { outOfRange } : {}) }, (raw) => {
    if (raw === undefined) return fallback;
    if (!/^-?\d+$/.test(raw.trim())) {
      if (opts.fallbackOnInvalid) return fallback;
      throw new Error("must be a whole number");
    }
    return bounded(Number.parseInt(raw, 10), fallback, opts);
  });
}

export function num(fallback: number, opts: IntOptions = {}): Parser<number> {
  return described({ type: "number", ...range(opts) }, (raw) => {
    if (raw === undefined) return fallback;
    const value = Number(raw.trim());
    if (!Number.isFinite(value)) throw new Error("must be a number");
    return bounded(value, fallback, opts);
  });
}

/** Comma-separated values; blanks around them and empty ones are dropped. */
export function list(fallback: readonly string[] = []): Parser<string[]> {
  return described({ type: "list" }, (raw) =>
    raw === undefined
      ? [...fallback]
      : raw
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s.length > 0),
  );
}

export function intList(fallback: readonly number[], opts: { min: number }): Parser<number[]> {
  return described({ type: "list", items: { type: "integer", minimum: opts.min } }, (raw, env) => {
    const parts = list(fallback.map(String))(raw, env);
    if (parts.length === 0) throw new Error("must list at least one value");
    return parts.map((p) => {
      if (!/^-?\d+$/.test(p)) throw new Error(`"${p}" is not a whole number`);
      const v = Number.parseInt(p, 10);
      if (v < opts.min) throw new Error(`values below ${opts.min} are rejected`);
      return v;
    });
  });
}

/** An http(s) URL. Unset or empty falls back; a fallback of "" makes the key optional (the feature it points at is
 * off when it is ""). */
export function httpUrl(fallback?: string): Parser<string> {
  const pattern = `^${anyCase("http")}[Ss]?://[^/?#\\s]+([/?#]\\S*)?$`;
  return described({ type: "text", pattern, summary: "an http(s) URL" }, (raw) => {
    const value = raw === undefined || raw === "" ? fallback : raw;
    if (value === undefined) throw new Error("is required");
    if (value === "") return "";
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new Error("must be an http(s) URL");
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("must be an http(s) URL");
    return value;
  });
}

/** Off unless the value is true, 1 or yes (any case); anything else, or nothing, is off. */
export function optIn(): Parser<boolean> {
  const on = ["true", "1", "yes"];
  return described(
    { type: "boolean", true: on, false: ["false", "0", "no"], otherwise: false },
    (raw) => raw !== undefined && on.includes(raw.trim().toLowerCase()),
  );
}

/** On unless the value is false, 0 or no (any case); anything else, or nothing, is on. */
export function optOut(): Parser<boolean> {
  const off = ["false", "0", "no"];
  return described(
    { type: "boolean", true: ["true", "1", "yes"], false: off, otherwise: true },
    (raw) => raw === undefined || !off.includes(raw.trim().toLowerCase()),
  );
}

export interface Rate {
  limit: number;
  windowSeconds: number;
}
const WINDOWS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86400 };

/** A rate such as `5/minute` (units: second, minute, hour, day). */
export function rate(fallback: string): Parser<Rate> {
  const unit = ["second", "minute", "hour", "day"].map(anyCase).join("|");
  const pattern = `^0*[1-9][0-9]*\\s*/\\s*(${unit})[Ss]?$`;
  return described({ type: "text", pattern, summary: "a rate such as 5/minute" }, (raw) => {
    const m = /^\s*(\d+)\s*\/\s*(second|minute|hour|day)s?\s*$/i.exec(raw ?? fallback);
    if (!m || Number(m[1]) < 1)
      throw new Error("must look like 5/minute (a count of at least 1 per second, minute, hour or day)");
    return { limit: Number(m[1]), windowSeconds: WINDOWS[m[2]!.toLowerCase()]! };
  });
}
