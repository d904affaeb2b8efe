// The reset e-mail's link and the reset token's lifetime.
export const RESET_TOKEN_TTL_MINUTES = 30;

export function resetUrl(baseUrl: string, rawToken: string): string {
  const url = new URL(baseUrl);
  url.searchParams.set("token", rawToken);
  return url.toString();
}

/** Seconds the address must still wait before another reset e-mail (0: send one now). */
export function resetCooldownSecondsLeft(lastRequestedAt: Date | null, cooldownSeconds: number, now: Date): number {
  if (!lastRequestedAt) return 0;
  const ms = lastRequestedAt.getTime() + cooldownSeconds * 1000 - now.getTime();
  return ms > 0 ? Math.ceil(ms / 1000) : 0;
}
