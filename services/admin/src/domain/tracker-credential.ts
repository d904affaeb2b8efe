// An organization's ticket-tracker login (the spec's Ticket-tracker login): what a valid one is. The host is kept
// bare (lower-case host name, no scheme, port, path or credentials), so a URL pasted from a browser and the host
// typed by hand name the same login; the api_token is write-only and only ever stored sealed.
import { hostUrlOf, requireLength, MAX_HOST, MAX_SECRET, MAX_USERNAME, type FieldProblem } from "./login-fields.ts";

export const AUTH_SCHEMES = ["tracker_basic"] as const;
export type AuthScheme = (typeof AUTH_SCHEMES)[number];

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

/** The bare host of `raw` (a host, or a URL), or null when it names none. */
export function bareHost(raw: string): string | null {
  const host = hostUrlOf(raw)?.host;
  return host !== undefined && host.length <= MAX_HOST ? host : null;
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
  requireLength(
    problems,
    "username",
    username,
    MAX_USERNAME,
    `is required for tracker_basic (1 to ${MAX_USERNAME} characters)`,
  );
  requireLength(problems, "api_token", input.apiToken, MAX_SECRET, `is required (1 to ${MAX_SECRET} characters)`);
  if (problems.length > 0) return { problems };
  return { login: { host: host!, apiToken: input.apiToken, authScheme: authScheme as AuthScheme, username } };
}
