// A team's own chat webhooks (docs/notifications.md, "Per-team chat webhooks"): what a URL must be, what a read
// shows of it (the host only: the URL is the credential), and the delivery recipient naming a team's webhook.
import type { FieldViolation } from "@sca/problem";

export const WEBHOOK_URL_MAX = 2048;
/** The `recipient` of a delivery to a team's webhook (the org-wide ones are `org`); the URL is looked up at send. */
export const TEAM_RECIPIENT_PREFIX = "team:";

export const teamRecipient = (teamId: string) => `${TEAM_RECIPIENT_PREFIX}${teamId}`;

export function teamOfRecipient(recipient: string): string | null {
  return recipient.startsWith(TEAM_RECIPIENT_PREFIX) ? recipient.slice(TEAM_RECIPIENT_PREFIX.length) : null;
}

/** Whether the URL's host is among TEAM_CHAT_WEBHOOK_ALLOWED_HOSTS (exact names, or `*.suffix` for names under it). */
export function hostAllowed(url: string, allowed: readonly string[]): boolean {
  const host = new URL(url).hostname.toLowerCase();
  return allowed.some((a) => {
    const entry = a.trim().toLowerCase();
    return entry.startsWith("*.") ? host.endsWith(entry.slice(1)) : host === entry;
  });
}

/**
 * An absolute http(s) URL without credentials in it, at most 2048 characters, on an allowed host; a violation
 * otherwise.
 */
export function webhookUrlViolation(path: string, url: string, allowed: readonly string[]): FieldViolation | null {
  if (url.length === 0 || url.length > WEBHOOK_URL_MAX)
    return { path, message: `must be 1..${WEBHOOK_URL_MAX} characters` };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { path, message: "must be an absolute http or https URL" };
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
    return { path, message: "must be an absolute http or https URL" };
  if (parsed.username || parsed.password) return { path, message: "must not carry a user name or password" };
  if (!hostAllowed(url, allowed))
    return { path, message: "must name a host the deployment allows (TEAM_CHAT_WEBHOOK_ALLOWED_HOSTS)" };
  return null;
}

/** What a read shows of a stored URL: whether it is set and its host. */
export function webhookState(url: string | null): { configured: boolean; host: string } {
  return url ? { configured: true, host: new URL(url).host } : { configured: false, host: "" };
}
