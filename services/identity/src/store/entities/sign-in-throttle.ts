import { defineEntity, p } from "@mikro-orm/postgresql";

/** The failed-sign-in throttle of one address (known or not). */
export const SignInThrottle = defineEntity({
  name: "SignInThrottle",
  tableName: "sign_in_throttles",
  properties: {
    email: p.string().length(320).primary(),
    consecutiveFailures: p.integer(),
    refusedUntil: p.datetime().strictNullable(),
    updatedAt: p.datetime().defaultRaw("now()"),
  },
  checks: [{ name: "sign_in_throttles_consecutive_failures_check", expression: "consecutive_failures >= 0" }],
});
