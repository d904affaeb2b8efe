// Repository webhooks (docs/scm.md): the providers a project's secret is for, and which project a webhook's
// repository names. A project is named by its git_url: two addresses name the same repository when their
// repository keys agree (host and path, lowercased, without scheme, credentials, a trailing slash or `.git`), so a
// payload's clone URL, web URL or scp-style ssh address all find a project registered with any of them.

export const WEBHOOK_PROVIDERS = ["scm_a", "scm_b"] as const;
export type WebhookProvider = (typeof WEBHOOK_PROVIDERS)[number];

export const isWebhookProvider = (value: string): value is WebhookProvider =>
  (WEBHOOK_PROVIDERS as readonly string[]).includes(value);

/** The most projects one webhook may name (a repository several projects scan, e.g. one per subdirectory). */
export const MAX_WEBHOOK_TARGETS = 20;

/** The repository key of an address, or null when it names no repository path. */
export function repositoryKey(address: string): string | null {
  let rest = address.trim().toLowerCase();
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//.exec(rest);
  if (scheme) rest = rest.slice(scheme[0].length);
  else {
    // scp-style ssh: user@host:owner/repo
    const scp = /^([^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/.exec(rest);
    if (!scp) return null;
    rest = `${scp[2]}/${scp[3]}`;
  }
  const at = rest.indexOf("@");
  const slash = rest.indexOf("/");
  if (at !== -1 && (slash === -1 || at < slash)) rest = rest.slice(at + 1);
  rest = rest
    .replace(/[?#].*$/, "")
    .replace(/\/+$/, "")
    .replace(/\.git$/, "")
    .replace(/\/+$/, "");
  const firstSlash = rest.indexOf("/");
  if (firstSlash <= 0 || firstSlash === rest.length - 1) return null;
  return rest;
}

/** The last path segment of a repository key: what narrows the stored projects before keys are compared. */
export function repositoryName(key: string): string {
  return key.slice(key.lastIndexOf("/") + 1);
}
