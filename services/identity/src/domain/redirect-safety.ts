// redirect_after comes from the browser and is replayed after sign-in, so it must never lead off-site:
// only a same-site path ("/projects?x=1") is honoured. Anything else falls back to the configured default.
const PROBE_ORIGIN = "https://same-site.invalid";
const MAX_LENGTH = 2048;

const hasControlCharacter = (s: string) => [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/** The path to return to after sign-in, or null when `raw` is absent or could leave the site. */
export function safeRedirectPath(raw: string | null | undefined): string | null {
  if (!raw || raw.length > MAX_LENGTH) return null;
  // "//host" and "/\host" are protocol-relative to browsers; control characters hide either of them.
  if (!raw.startsWith("/") || raw.startsWith("//") || raw.includes("\\") || hasControlCharacter(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw, PROBE_ORIGIN);
  } catch {
    return null;
  }
  if (url.origin !== PROBE_ORIGIN) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}
