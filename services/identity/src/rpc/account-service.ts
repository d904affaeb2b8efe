// sca.identity.v1.AccountService: registration, sign-in, sessions, password reset, the caller's second factor.
import type { ConnectRouter } from "@connectrpc/connect";
import { AccountService } from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import type { AccountDeps } from "./account-deps.ts";
import { passwordResetHandlers } from "./password-reset.ts";
import { registrationHandlers } from "./registration.ts";
import { secondFactorEnrolmentHandlers } from "./second-factor-enrolment.ts";
import { signInHandlers } from "./sign-in.ts";

export function registerAccountService(router: ConnectRouter, deps: AccountDeps): void {
  router.service(AccountService, {
    ...registrationHandlers(deps),
    ...signInHandlers(deps),
    ...passwordResetHandlers(deps),
    ...secondFactorEnrolmentHandlers(deps),
  });
}
