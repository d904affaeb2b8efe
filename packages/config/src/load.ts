import type { Env, Parser } from "./parse.ts";

export interface KeySpec<T> {
  parse: Parser<T>;
  /** Never printed, not even in an error line. */
  secret?: boolean;
}

export type ConfigOf<S extends Record<string, KeySpec<unknown>>> = {
  readonly [K in keyof S]: ReturnType<S[K]["parse"]>;
};

export class ConfigError extends Error {
  readonly key: string;
  constructor(key: string, rule: string) {
    super(`configuration error: ${key} ${rule}`);
    this.key = key;
  }
}

/** Parses the keys a service uses, once, at start-up. Empty values count as absent. */
export function loadConfig<S extends Record<string, KeySpec<unknown>>>(spec: S, env: Env = process.env): ConfigOf<S> {
  const out: Record<string, unknown> = {};
  for (const [key, def] of Object.entries(spec)) {
    const raw = env[key];
    const present = raw !== undefined && raw.trim() !== "" ? raw.trim() : undefined;
    try {
      out[key] = def.parse(present, env);
    } catch (err) {
      throw new ConfigError(key, (err as Error).message);
    }
  }
  return Object.freeze(out) as ConfigOf<S>;
}

/** Some keys of a table, loaded alone (a test of a few keys). */
export function pickKeys<S extends Record<string, KeySpec<unknown>>, K extends keyof S>(
  spec: S,
  names: readonly K[],
): Pick<S, K> {
  return Object.fromEntries(names.map((name) => [name, spec[name]])) as Pick<S, K>;
}

/** For a process's start: a ConfigError stops it with one line naming the key and the rule; anything else rethrows. */
export function exitOnConfigError(err: unknown): never {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(78); // EX_CONFIG
}

/** As loadConfig, but a bad value stops the process with one line naming the key and the rule. */
export function loadConfigOrExit<S extends Record<string, KeySpec<unknown>>>(
  spec: S,
  env: Env = process.env,
): ConfigOf<S> {
  try {
    return loadConfig(spec, env);
  } catch (err) {
    return exitOnConfigError(err);
  }
}
