// Parsers for environment values. Each returns the typed value or throws a message naming the rule broken.
// `undefined` means the key is absent or empty: the parser decides whether that is allowed.

export type Env = Readonly<Record<string, string | undefined>>;
export type Parser<T> = (raw: string | undefined, env: Env) => T;

const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);

export function required(name = "a value"): Parser<string> {
  return (raw) => {
    if (raw === undefined) throw new Error(`is required (${name})`);
    return raw;
  };
}

export function text(fallback: string): Parser<string> {
  return (raw) => raw ?? fallback;
}

export function optionalText(): Parser<string | undefined> {
  return (raw) => raw;
}

export function oneOf<const T extends string>(
  values: readonly T[],
  fallback: T,
  opts: { caseInsensitive?: boolean } = {},
): Parser<T> {
  return (raw) => {
    if (raw === undefined) return fallback;
    const value = opts.caseInsensitive ? raw.toLowerCase() : raw;
    const hit = values.find((v) => (opts.caseInsensitive ? v.toLowerCase() : v) === value);
    if (!hit) throw new Error(`must be one of ${values.join(", ")}`);
    return hit;
  };
}

/** A strict boolean: anything but a recognised spelling stops the process. */
export function bool(fallback: boolean): Parser<boolean> {
  return (raw) => {
    if (raw === undefined) return fallback;
    const v = raw.trim().toLowerCase();
    if (TRUE.has(v)) return true;
    if (FALSE.has(v)) return false;
    throw new Error("must be true or false");
  };
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

export function int(fallback: number, opts: IntOptions = {}): Parser<number> {
  return (raw) => {
    if (raw === undefined) return fallback;
    if (!/^-?\d+$/.test(raw.trim())) {
      if (opts.fallbackOnInvalid) return fallback;
      throw new Error("must be a whole number");
    }
    return bounded(Number.parseInt(raw, 10), fallback, opts);
  };
}

export function num(fallback: number, opts: IntOptions = {}): Parser<number> {
  return (raw) => {
    if (raw === undefined) return fallback;
    const value = Number(raw.trim());
    if (!Number.isFinite(value)) throw new Error("must be a number");
    return bounded(value, fallback, opts);
  };
}

export function list(fallback: readonly string[] = []): Parser<string[]> {
  return (raw) =>
    raw === undefined
      ? [...fallback]
      : raw
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s.length > 0);
}

export function intList(fallback: readonly number[], opts: { min: number }): Parser<number[]> {
  return (raw, env) => {
    const parts = list(fallback.map(String))(raw, env);
    if (parts.length === 0) throw new Error("must list at least one value");
    return parts.map((p) => {
      if (!/^-?\d+$/.test(p)) throw new Error(`"${p}" is not a whole number`);
      const v = Number.parseInt(p, 10);
      if (v < opts.min) throw new Error(`values below ${opts.min} are rejected`);
      return v;
    });
  };
}

export function url(fallback?: string): Parser<string> {
  return (raw) => {
    const value = raw ?? fallback;
    if (value === undefined) throw new Error("is required");
    try {
      new URL(value);
    } catch {
      throw new Error("must be a URL");
    }
    return value;
  };
}

/** An http(s) URL. Unset or empty falls back; a fallback of "" makes the key optional (the feature it points at is
 * off when it is ""). */
export function httpUrl(fallback?: string): Parser<string> {
  return (raw) => {
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
  };
}

/** Off unless the value is true, 1 or yes (any case); anything else, or nothing, is off. */
export function optIn(): Parser<boolean> {
  return (raw) => raw !== undefined && ["true", "1", "yes"].includes(raw.trim().toLowerCase());
}

/** On unless the value is false, 0 or no (any case); anything else, or nothing, is on. */
export function optOut(): Parser<boolean> {
  return (raw) => raw === undefined || !["false", "0", "no"].includes(raw.trim().toLowerCase());
}

export interface Rate {
  limit: number;
  windowSeconds: number;
}
const WINDOWS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86400 };

/** A rate such as `5/minute` (units: second, minute, hour, day). */
export function rate(fallback: string): Parser<Rate> {
  return (raw) => {
    const m = /^\s*(\d+)\s*\/\s*(second|minute|hour|day)s?\s*$/i.exec(raw ?? fallback);
    if (!m || Number(m[1]) < 1)
      throw new Error("must look like 5/minute (a count of at least 1 per second, minute, hour or day)");
    return { limit: Number(m[1]), windowSeconds: WINDOWS[m[2]!.toLowerCase()]! };
  };
}
