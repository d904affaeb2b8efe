// Who the CLI calls as, and where. SCA_API_KEY wins over anything stored (CI sets it as a secret); `sca login` stores
// an API key or a person's access token in <config dir>/sca/credentials.json, readable by the user alone (0600 in a
// 0700 directory). The config dir is $XDG_CONFIG_HOME, else ~/.config (%APPDATA% on Windows).
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CliError } from "./exit-codes.ts";

/** An API key (`tos_...`) or a person's access token with its expiry. */
export type Bearer =
  { kind: "api_key"; secret: string } | { kind: "access_token"; secret: string; email: string; expiresAt: string };

export interface StoredCredentials {
  api: string;
  bearer: Bearer;
}

export function credentialsPath(env: NodeJS.ProcessEnv): string {
  const base =
    env.XDG_CONFIG_HOME ||
    (process.platform === "win32" && env.APPDATA ? env.APPDATA : join(env.HOME || homedir(), ".config"));
  return join(base, "sca", "credentials.json");
}

export async function readCredentials(env: NodeJS.ProcessEnv): Promise<StoredCredentials | null> {
  const text = await readFile(credentialsPath(env), "utf8").catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return null;
    throw err;
  });
  return text === null ? null : (JSON.parse(text) as StoredCredentials);
}

export async function writeCredentials(env: NodeJS.ProcessEnv, credentials: StoredCredentials): Promise<string> {
  const path = credentialsPath(env);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Written with 0600 from the first byte, and chmod-ed in case the file existed with wider rights.
  await writeFile(path, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
  return path;
}

export async function forgetCredentials(env: NodeJS.ProcessEnv): Promise<void> {
  await rm(credentialsPath(env), { force: true });
}

/** The portal's API URL (`--api`, else SCA_API, else the stored one) and the bearer to send. */
export async function resolveCredentials(
  env: NodeJS.ProcessEnv,
  apiOption: string | undefined,
  now: Date = new Date(),
): Promise<{ api: string; bearer: Bearer }> {
  const stored = await readCredentials(env);
  const api = apiOption ?? env.SCA_API ?? stored?.api;
  if (!api) throw new CliError("no portal: give --api URL (the portal's /api), set SCA_API, or run sca login");
  if (env.SCA_API_KEY) return { api, bearer: { kind: "api_key", secret: env.SCA_API_KEY } };
  if (!stored) throw new CliError("not signed in: run sca login, or set SCA_API_KEY");
  if (stored.bearer.kind === "access_token" && Date.parse(stored.bearer.expiresAt) <= now.getTime())
    throw new CliError(`the sign-in of ${stored.bearer.email} expired: run sca login again`);
  return { api, bearer: stored.bearer };
}

/** What may be shown of a bearer: an API key's public prefix, never its secret. */
export function describeBearer(bearer: Bearer): string {
  if (bearer.kind === "access_token") return bearer.email;
  const prefix = /^tos_([a-z0-9]+)_/.exec(bearer.secret)?.[1];
  return prefix ? `API key tos_${prefix}_…` : "an API key";
}
