// When a failed delivery is tried again: exponential back-off from `baseMs`, at most an hour apart, and given up
// after MAX_DELIVERY_ATTEMPTS (or once the message has expired, e.g. a reset link past its expiry).

export const MAX_DELIVERY_ATTEMPTS = 10;
const MAX_DELAY_MS = 3_600_000;

/** After `attempts` failed tries: when to try again, or null to give up. */
export function nextAttemptAt(attempts: number, now: Date, baseMs: number, expiresAt: Date | null): Date | null {
  if (attempts >= MAX_DELIVERY_ATTEMPTS) return null;
  const at = new Date(now.getTime() + Math.min(MAX_DELAY_MS, baseMs * 2 ** Math.max(0, attempts - 1)));
  if (expiresAt && at >= expiresAt) return null;
  return at;
}
