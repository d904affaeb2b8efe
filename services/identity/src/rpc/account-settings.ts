// The configuration keys accounts and sessions read: identity's own, and the shared ones they use.
import { key, keys, parse as p, type ConfigOf } from "@sca/config";

export const accountKeys = {
  APP_ENV: keys.APP_ENV,
  /** POST /v1/auth/register creates accounts; false answers 404 (people come from an administrator or SSO). */
  AUTH_SELF_REGISTRATION: key(p.bool(true)),
  ACCESS_TOKEN_EXPIRE_MINUTES: key(p.int(30, { min: 1, max: 24 * 60 })),
  REFRESH_TOKEN_EXPIRE_DAYS: key(p.int(7, { min: 1, max: 365 })),
  REFRESH_TOKEN_RETENTION_GRACE_DAYS: key(p.int(1, { min: 0, max: 365 })),
  PASSWORD_RESET_TOKEN_RETENTION_GRACE_DAYS: key(p.int(1, { min: 0, max: 365 })),
  PASSWORD_RESET_BASE_URL: keys.PASSWORD_RESET_BASE_URL,
  PASSWORD_RESET_EMAIL_COOLDOWN_SECONDS: key(p.int(300, { min: 0, max: 86400 })),
  /**
   * The failed-sign-in throttle (docs/identity.md): after LOGIN_THROTTLE_FAILURES consecutive failures an address is
   * refused for the next of LOGIN_THROTTLE_WINDOWS' seconds, even with the right password.
   */
  LOGIN_THROTTLE_ENABLED: key(p.bool(true)),
  LOGIN_THROTTLE_FAILURES: key(p.int(10, { min: 1, max: 1000 })),
  LOGIN_THROTTLE_WINDOWS: key(p.intList([60, 300, 900, 1800], { min: 1 })),
};

export type AccountSettings = ConfigOf<typeof accountKeys>;
