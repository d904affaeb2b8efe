// When to ask again: 429 and 503 only (the portal's rate limits, disk pressure, a service not ready), honouring
// Retry-After (seconds or an HTTP date, RFC 9110 §10.2.3), else doubling from half a second. Five attempts in all;
// a wait the portal asks for past five minutes is not waited (the answer is reported instead).
export const MAX_ATTEMPTS = 5;
const FIRST_DELAY_MS = 500;
const MAX_BACKOFF_MS = 8_000;
export const MAX_RETRY_AFTER_MS = 300_000;

export function isRetryable(status: number): boolean {
  return status === 429 || status === 503;
}

/** The wait before attempt `attempt + 1` (attempt counts from 1), or null when the wait asked for is too long. */
export function retryDelayMs(attempt: number, retryAfter: string | null, now: number): number | null {
  const asked = retryAfterMs(retryAfter, now);
  if (asked !== null) return asked > MAX_RETRY_AFTER_MS ? null : asked;
  return Math.min(FIRST_DELAY_MS * 2 ** (attempt - 1), MAX_BACKOFF_MS);
}

function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null || value.trim() === "") return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
