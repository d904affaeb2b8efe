// An organization's ticket-tracker login (the spec's Ticket-tracker login): what a valid one is. The host is kept
// bare (lower-case host name, no scheme, port, path or credentials), so a URL pasted from a browser and the host
// typed by hand name the same login; the api_token is write-only and only ever stored sealed.

export const AUTH_SCHEMES = ["tracker_basic"] as const;
export type AuthScheme = (typeof AUTH_SCHEMES)[number];

const MAX_HOST = 255;
const MAX_USERNAME = 255;
const MAX_TOKEN = 4096;
// A DNS name or an IPv4 address: labels of letters, digits and hyphens.
const HOST_NAME = /^(?=.{1,255}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

export interface TrackerLoginInput {
  host: string;
  apiToken: string;
  authScheme: string | undefined;
  username: string;
}

export interface TrackerLogin {
  host: string;
  apiToken: string;
  authScheme: AuthScheme;
  username: string;
}

export type FieldProblem = { path: string; message: string };

/** The bare host of `raw` (a host, or a URL), or null when it names none. */
export function bareHost(raw: string): string | null {
  const text = raw.trim();
  if (text.length === 0 || text.length > 2048) return null;
  let host: string;
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`).hostname;
  } catch {
    return null;
  }
  host = host.replace(/\.$/, "").toLowerCase();
  return HOST_NAME.test(host) && host.length <= MAX_HOST ? host : null;
}

/** The login to store, or the problems of the input (paths under the body). */
export function parseTrackerLogin(input: TrackerLoginInput): { login: TrackerLogin } | { problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const host = bareHost(input.host);
  if (!host) problems.push({ path: "host", message: `must be a host name (1 to ${MAX_HOST} characters)` });
  const authScheme = input.authScheme ?? "tracker_basic";
  if (!(AUTH_SCHEMES as readonly string[]).includes(authScheme))
    problems.push({ path: "auth_scheme", message: `must be one of ${AUTH_SCHEMES.join(", ")}` });
  const username = input.username.trim();
  if (username.length < 1 || username.length > MAX_USERNAME)
    problems.push({ path: "username", message: `is required for tracker_basic (1 to ${MAX_USERNAME} characters)` });
  if (input.apiToken.length < 1 || input.apiToken.length > MAX_TOKEN)
    problems.push({ path: "api_token", message: `is required (1 to ${MAX_TOKEN} characters)` });
  if (problems.length > 0) return { problems };
  return { login: { host: host!, apiToken: input.apiToken, authScheme: authScheme as AuthScheme, username } };
}
