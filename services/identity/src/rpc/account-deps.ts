import type { MikroORM } from "@mikro-orm/postgresql";
import type { AccessAnswerCache } from "../store/access-answer-cache.ts";
import type { AccountSettings } from "./account-settings.ts";

export interface AccountDeps {
  orm: MikroORM;
  secretKey: string;
  settings: AccountSettings;
  /** The gateway's cached access-token answers, dropped when a session ends or a caller changes. */
  accessAnswers: AccessAnswerCache;
}

export function throttlePolicy(s: AccountSettings) {
  return {
    enabled: s.LOGIN_THROTTLE_ENABLED,
    failures: s.LOGIN_THROTTLE_FAILURES,
    windowsSeconds: s.LOGIN_THROTTLE_WINDOWS,
  };
}
