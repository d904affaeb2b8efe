// Self-registration and the me view.
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  GetMeResponseSchema,
  RegisterResponseSchema,
  type RegisterRequest,
} from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { clientAddressFrom, requirePerson } from "@sca/rpc";
import { hashPassword } from "../domain/password-hash.ts";
import { clientActor } from "@sca/audit";
import { emitAudit } from "../events/account-events.ts";
import { accountById, insertAccount } from "../store/accounts.ts";
import type { AccountDeps } from "./account-deps.ts";
import { emailField, failIfAny, newPasswordField } from "./field-checks.ts";
import { userView } from "./user-views.ts";

const FULL_NAME_MAX = 255;

export function registrationHandlers(deps: AccountDeps) {
  return {
    async register(req: RegisterRequest) {
      if (!deps.settings.AUTH_SELF_REGISTRATION) throw ProblemError.notFound("Self-registration is disabled.");
      const violations: FieldViolation[] = [];
      const email = emailField(req.email, "body.email", violations);
      newPasswordField(req.password, "body.password", violations);
      const fullName = req.fullName?.trim() || null;
      if (fullName && fullName.length > FULL_NAME_MAX)
        violations.push({ path: "body.full_name", message: `must be at most ${FULL_NAME_MAX} characters` });
      failIfAny(violations);
      const passwordHash = await hashPassword(req.password);
      const now = new Date();
      const view = await deps.orm.em.fork().transactional(async (em) => {
        const account = await insertAccount(em, { email, fullName, passwordHash });
        if (!account) return null;
        emitAudit(em, {
          action: "auth.registered",
          actor: clientActor(clientAddressFrom(req.client), { userId: account.id, email }),
          targetId: account.id,
          outcome: "success",
          at: now,
        });
        return userView(em, account, "public");
      });
      if (!view)
        throw new ProblemError({
          status: 409,
          code: "email_registered",
          detail: "An account with this e-mail address already exists.",
        });
      return create(RegisterResponseSchema, { user: view });
    },

    async getMe(_req: unknown, ctx: HandlerContext) {
      const caller = requirePerson(ctx, () =>
        ProblemError.unauthorized("This route is for signed-in people, not API keys."),
      );
      const em = deps.orm.em.fork();
      const account = await accountById(em, caller.user_id);
      if (!account || !account.isActive) throw ProblemError.unauthorized();
      return create(GetMeResponseSchema, { user: await userView(em, account, "me") });
    },
  };
}
