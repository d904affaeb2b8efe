// What presenting a refresh token leads to. Each token is used once: a valid one is rotated (a new token of
// the same family replaces it); a token already rotated means a copy is in someone else's hands, so the whole
// family is revoked and both holders must sign in again.
export interface PresentedRefreshToken {
  rotatedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date;
  userActive: boolean;
}

export type RefreshDecision =
  | { kind: "rotate" }
  | { kind: "reuse" } // 401 and revoke the family
  | { kind: "refuse" }; // 401: unknown, revoked, expired or the account is deactivated

export function decideRefresh(token: PresentedRefreshToken | null, now: Date): RefreshDecision {
  if (!token) return { kind: "refuse" };
  if (token.rotatedAt) return { kind: "reuse" };
  if (token.revokedAt || token.expiresAt.getTime() <= now.getTime() || !token.userActive) return { kind: "refuse" };
  return { kind: "rotate" };
}

/** Each rotation starts a full lifetime (sliding): a session lives while it is used at least weekly. */
export function refreshExpiry(now: Date, lifetimeDays: number): Date {
  return new Date(now.getTime() + lifetimeDays * 86_400_000);
}
