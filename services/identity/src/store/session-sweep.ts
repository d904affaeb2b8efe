// The daily sweep of accounts state: refresh and reset tokens past their expiry by the retention grace,
// reset cooldowns that ran out, throttle rows idle past the longest refusal window.
import type { MikroORM } from "@mikro-orm/postgresql";
import { deleteExpiredResetState } from "./password-resets.ts";
import { deleteExpiredRefreshTokens } from "./refresh-tokens.ts";
import { deleteIdleThrottles } from "./sign-in-throttles.ts";

export interface SweepSettings {
  REFRESH_TOKEN_RETENTION_GRACE_DAYS: number;
  PASSWORD_RESET_TOKEN_RETENTION_GRACE_DAYS: number;
  LOGIN_THROTTLE_WINDOWS: readonly number[];
}

export async function sweepSessionState(
  orm: MikroORM,
  s: SweepSettings,
  now = new Date(),
): Promise<{ refreshTokens: number; resetTokens: number; throttles: number }> {
  const em = orm.em.fork();
  return {
    refreshTokens: await deleteExpiredRefreshTokens(em, now, s.REFRESH_TOKEN_RETENTION_GRACE_DAYS),
    resetTokens: await deleteExpiredResetState(em, now, s.PASSWORD_RESET_TOKEN_RETENTION_GRACE_DAYS),
    throttles: await deleteIdleThrottles(em, now, Math.max(...s.LOGIN_THROTTLE_WINDOWS)),
  };
}
