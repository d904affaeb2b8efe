// Self-registration under /v1/auth and /auth (AccountService.Register). Choices: docs/identity.md ("HTTP routes").
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { AUTH_TAGS, authOperationId, type AuthPrefix } from "../../http/auth-paths.ts";
import { clientAddressOf, clientOf } from "../../http/client-address.ts";
import { perAddressLimitText } from "../../http/rate-limit.ts";
import { codePoints, emailAddress } from "./fields.ts";
import { adminUserJson, adminUserSchema } from "./views.ts";

/** The public view of a user (what registration answers). */
const publicUserSchema = adminUserSchema
  .pick({
    id: true,
    email: true,
    full_name: true,
    is_active: true,
    is_superuser: true,
    created_at: true,
  })
  .meta({ id: "User" });

/** The registration route under one of the auth prefixes (routes/identity/index.ts lists it under each). */
export function registrationRoutes(ctx: GatewayContext, prefix: AuthPrefix): Route[] {
  const accounts = ctx.clients.identity.accounts;
  const limit = ctx.rateLimit({ name: "register", ...ctx.config.REGISTRATION_RATE_LIMIT, key: clientAddressOf });
  return [
    defineRoute({
      method: "post",
      path: `${prefix}/register`,
      summary: "Register an account (self-registration)",
      description: `Not a common password. ${perAddressLimitText(ctx.config, "REGISTRATION_RATE_LIMIT")}`,
      tags: AUTH_TAGS,
      operationId: authOperationId(prefix, "register"),
      middleware: [limit],
      request: {
        body: z.object({
          email: emailAddress,
          full_name: z.string().max(255).nullable().optional(),
          password: codePoints(8, 256),
        }),
      },
      responses: {
        201: { description: "The new user (never the password)", schema: publicUserSchema },
        404: problemResponse("Self-registration is off (AUTH_SELF_REGISTRATION=false)"),
        409: problemResponse("The e-mail address is already registered (email_registered)"),
        429: problemResponse("Too many registrations from this address"),
      },
      handler: async ({ body, req }) => {
        const { user } = await accounts.register({
          email: body.email,
          fullName: body.full_name ?? undefined,
          password: body.password,
          client: clientOf(req),
        });
        return { status: 201, body: adminUserJson(user!) };
      },
    }),
  ];
}
