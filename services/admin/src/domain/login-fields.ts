// What an organization's logins (a registry login, a ticket-tracker login) share: the host a pasted URL or a typed
// name names, kept as a host name (lower-case, no trailing dot), and the bounds of their text fields.

export const MAX_HOST = 255;
export const MAX_USERNAME = 255;
/** A password or token: write-only, only ever stored sealed. */
export const MAX_SECRET = 4096;

export type FieldProblem = { path: string; message: string };

// A DNS name or an IPv4 address: labels of letters, digits and hyphens.
const HOST_NAME = /^(?=.{1,255}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** `raw` (a host, host:port or a URL; https when it names no scheme) as a URL whose host is a host name, or null. */
export function hostUrlOf(raw: string): { url: URL; host: string } | null {
  const text = raw.trim();
  if (text.length === 0 || text.length > 2048) return null;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return null;
  }
  const host = url.hostname.replace(/\.$/, "").toLowerCase();
  return HOST_NAME.test(host) ? { url, host } : null;
}

/** Adds `message` to `problems` when a required text field is outside 1 to `max` characters. */
export function requireLength(
  problems: FieldProblem[],
  path: string,
  value: string,
  max: number,
  message: string,
): void {
  if (value.length < 1 || value.length > max) problems.push({ path, message });
}
