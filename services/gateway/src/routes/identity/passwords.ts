// Forgotten passwords under /v1/auth and /auth (AccountService): ask for a reset e-mail, set a new password with
// its token. Choices: docs/identity.md ("HTTP routes").
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { AUTH_TAGS, authOperationId, type AuthPrefix } from "../../http/auth-paths.ts";
import { clientAddressOf, clientOf } from "../../http/client-address.ts";
import { perAddressLimitText } from "../../http/rate-limit.ts";
import { codePoints, emailAddress } from "./fields.ts";

/** The password routes under one of the auth prefixes (routes/identity/index.ts lists them under each). */
export function passwordRoutes(ctx: GatewayContext, prefix: AuthPrefix): Route[] {
  const accounts = ctx.clients.identity.accounts;
  const limits = {
    forgotPassword: ctx.rateLimit({
      name: "forgot-password",
      ...ctx.config.PASSWORD_RESET_RATE_LIMIT,
      key: clientAddressOf,
    }),
    resetPassword: ctx.rateLimit({
      name: "reset-password",
      ...ctx.config.PASSWORD_RESET_CONFIRM_RATE_LIMIT,
      key: clientAddressOf,
    }),
  };
  return [
    defineRoute({
      method: "post",
      path: `${prefix}/forgot-password`,
      summary: "Ask for a password-reset e-mail",
      description:
        "Always 204, whether or not the address has an account. Within PASSWORD_RESET_EMAIL_COOLDOWN_SECONDS of the " +
        "previous request for the address nothing is sent and Retry-After gives the seconds left. " +
        perAddressLimitText(ctx.config, "PASSWORD_RESET_RATE_LIMIT"),
      tags: AUTH_TAGS,
      operationId: authOperationId(prefix, "forgotPassword"),
      middleware: [limits.forgotPassword],
      request: { body: z.object({ email: emailAddress }) },
      responses: {
        204: {
          description: "Accepted",
          headers: z.object({
            "Retry-After": z.string().optional().meta({ description: "While the address's cooldown runs" }),
          }),
        },
        429: problemResponse("Too many requests from this address"),
      },
      handler: async ({ body, req }) => {
        const { retryAfterSeconds } = await accounts.forgotPassword({ email: body.email, client: clientOf(req) });
        return {
          status: 204,
          ...(retryAfterSeconds > 0 ? { headers: { "Retry-After": String(retryAfterSeconds) } } : {}),
        };
      },
    }),
    defineRoute({
      method: "post",
      path: `${prefix}/reset-password`,
      summary: "Set a new password with the token of a reset e-mail",
      description:
        "Ends every sign-in of the account and lifts its failed-sign-in throttle. " +
        perAddressLimitText(ctx.config, "PASSWORD_RESET_CONFIRM_RATE_LIMIT"),
      tags: AUTH_TAGS,
      operationId: authOperationId(prefix, "resetPassword"),
      middleware: [limits.resetPassword],
      request: { body: z.object({ new_password: codePoints(8, 256), token: z.string().min(8).max(256) }) },
      responses: {
        204: { description: "The password is changed" },
        422: problemResponse(
          "Invalid fields, a common password, or a bad, expired or used token (invalid_reset_token)",
        ),
        429: problemResponse("Too many requests from this address"),
      },
      handler: async ({ body, req }) => {
        await accounts.resetPassword({ token: body.token, newPassword: body.new_password, client: clientOf(req) });
        return { status: 204 };
      },
    }),
  ];
}
