// The signed-in person's own account under /v1/auth and /auth (AccountService): the me view and the TOTP
// second factor (enrol, confirm, remove). The TOTP secret and the recovery codes cross the gateway once each.
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { AUTH_PREFIXES, AUTH_TAGS, authOperationId, type AuthPrefix } from "../../http/auth-paths.ts";
import { adminUserJson, adminUserSchema } from "./views.ts";

const meSchema = adminUserSchema
  .pick({
    id: true,
    email: true,
    full_name: true,
    is_active: true,
    is_superuser: true,
    created_at: true,
    memberships: true,
    mfa_enabled: true,
  })
  .meta({ id: "Me", description: "The caller with its direct memberships (oldest first)" });

const totpEnrolmentSchema = z.object({ secret: z.string(), otpauth_uri: z.string() }).meta({ id: "TotpEnrolment" });
const recoveryCodesSchema = z.object({ recovery_codes: z.array(z.string()) }).meta({ id: "RecoveryCodes" });
const codeBody = z.object({ code: z.string().min(1).max(64) });
const notAPerson = problemResponse("No bearer, an invalid one, or an API key (the second factor belongs to people)");

export function meRoutes(ctx: GatewayContext): Route[] {
  const accounts = ctx.clients.identity.accounts;
  const caller = ctx.auth.route("caller");

  const routesUnder = (prefix: AuthPrefix): Route[] => [
    defineRoute({
      method: "get",
      path: `${prefix}/me`,
      summary: "The signed-in user",
      tags: AUTH_TAGS,
      operationId: authOperationId(prefix, "getMe"),
      auth: caller,
      responses: { 200: { description: "The caller", schema: meSchema }, 401: notAPerson },
      handler: async ({ call }) => {
        const { user } = await accounts.getMe({}, call);
        return { status: 200, body: adminUserJson(user!) };
      },
    }),
    defineRoute({
      method: "post",
      path: `${prefix}/mfa/totp/setup`,
      summary: "Start TOTP enrolment",
      description: "A new secret, pending until confirmed; calling again restarts the enrolment.",
      tags: AUTH_TAGS,
      operationId: authOperationId(prefix, "beginTotpEnrolment"),
      auth: caller,
      responses: {
        200: {
          description: "The secret (base32, shown once) and its otpauth:// URI for a QR code",
          schema: totpEnrolmentSchema,
        },
        401: notAPerson,
        409: problemResponse("A second factor is already enabled (second_factor_enabled)"),
      },
      handler: async ({ call }) => {
        const enrolment = await accounts.beginTotpEnrolment({}, call);
        return { status: 200, body: { secret: enrolment.secret, otpauth_uri: enrolment.otpauthUri } };
      },
    }),
    defineRoute({
      method: "post",
      path: `${prefix}/mfa/totp/confirm`,
      summary: "Confirm TOTP enrolment with a current code",
      tags: AUTH_TAGS,
      operationId: authOperationId(prefix, "confirmTotpEnrolment"),
      auth: caller,
      request: { body: codeBody },
      responses: {
        200: {
          description: "Ten recovery codes, shown this once",
          schema: recoveryCodesSchema,
        },
        401: notAPerson,
        409: problemResponse("No enrolment is pending (no_enrolment_pending)"),
        422: problemResponse("The code is wrong (invalid_second_factor_code)"),
      },
      handler: async ({ body, call }) => {
        const { recoveryCodes } = await accounts.confirmTotpEnrolment({ code: body.code }, call);
        return { status: 200, body: { recovery_codes: recoveryCodes } };
      },
    }),
    defineRoute({
      method: "delete",
      path: `${prefix}/mfa`,
      summary: "Remove the second factor",
      description: "code: a current TOTP code or an unused recovery code.",
      tags: AUTH_TAGS,
      operationId: authOperationId(prefix, "removeSecondFactor"),
      auth: caller,
      request: { body: codeBody },
      responses: {
        204: { description: "Removed; recovery codes are gone too" },
        401: notAPerson,
        404: problemResponse("No second factor is enabled"),
        422: problemResponse("The code is wrong (invalid_second_factor_code)"),
      },
      handler: async ({ body, call }) => {
        await accounts.removeSecondFactor({ code: body.code }, call);
        return { status: 204 };
      },
    }),
  ];

  return AUTH_PREFIXES.flatMap(routesUnder);
}
