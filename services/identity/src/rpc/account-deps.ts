import type { MikroORM } from "@mikro-orm/postgresql";
import type { AccountSettings } from "./account-settings.ts";

export interface AccountDeps {
  orm: MikroORM;
  secretKey: string;
  settings: AccountSettings;
}

export function throttlePolicy(s: AccountSettings) {
  return {
    enabled: s.LOGIN_THROTTLE_ENABLED,
    failures: s.LOGIN_THROTTLE_FAILURES,
    windowsSeconds: s.LOGIN_THROTTLE_WINDOWS,
  };
}
