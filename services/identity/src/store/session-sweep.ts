// The daily sweep of accounts state: refresh and reset tokens past their expiry by the retention grace,
// reset cooldowns that ran out, throttle rows idle past the longest refusal window.
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "@sca/log";
import { deleteExpiredResetState } from "./password-resets.ts";
import { deleteExpiredRefreshTokens } from "./refresh-tokens.ts";
import { deleteIdleThrottles } from "./sign-in-throttles.ts";

export interface SweepSettings {
  REFRESH_TOKEN_RETENTION_GRACE_DAYS: number;
  PASSWORD_RESET_TOKEN_RETENTION_GRACE_DAYS: number;
  LOGIN_THROTTLE_WINDOWS: readonly number[];
}

export async function sweepSessionState(orm: MikroORM, s: SweepSettings, now = new Date()): Promise<{ refreshTokens: number; resetTokens: number; throttles: number }> {
  const em = orm.em.fork();
  return {
    refreshTokens: await deleteExpiredRefreshTokens(em, now, s.REFRESH_TOKEN_RETENTION_GRACE_DAYS),
    resetTokens: await deleteExpiredResetState(em, now, s.PASSWORD_RESET_TOKEN_RETENTION_GRACE_DAYS),
    throttles: await deleteIdleThrottles(em, now, Math.max(...s.LOGIN_THROTTLE_WINDOWS)),
  };
}

/** Runs the sweep now and then daily; replicas may sweep concurrently (deletes are idempotent). */
export function scheduleSessionSweep(orm: MikroORM, s: SweepSettings, logger: Logger): () => void {
  const run = () => sweepSessionState(orm, s).then(
    (deleted) => logger.info({ deleted }, "swept expired session state"),
    (err: unknown) => logger.error({ err }, "session sweep failed"));
  void run();
  const timer = setInterval(() => void run(), 86_400_000);
  timer.unref();
  return () => clearInterval(timer);
}
