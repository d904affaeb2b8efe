// The caller's linked sign-in identities under /v1/users/me/oauth-identities (SsoService): list and unlink.
// People only: identity answers 403 to an API key.
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { linkedIdentityJson, linkedIdentitySchema } from "./views.ts";

const TAGS = ["users"];
const PATH = "/v1/users/me/oauth-identities";

const notAPerson = problemResponse("An API key: linked identities belong to people");

export function oauthIdentityRoutes(ctx: GatewayContext): Route[] {
  const sso = ctx.clients.identity.sso;
  const caller = ctx.auth.route("caller");
  return [
    defineRoute({
      method: "get",
      path: PATH,
      summary: "The caller's linked sign-in identities",
      tags: TAGS,
      operationId: "listMyOAuthIdentities",
      auth: caller,
      responses: {
        200: {
          description: "Oldest first",
          schema: z.object({ items: z.array(linkedIdentitySchema) }).meta({ id: "LinkedIdentities" }),
        },
        403: notAPerson,
      },
      handler: async ({ call }) => {
        const { items } = await sso.listMyIdentities({}, call);
        return { status: 200, body: { items: items.map(linkedIdentityJson) } };
      },
    }),
    defineRoute({
      method: "delete",
      path: `${PATH}/{identity_id}`,
      summary: "Unlink one of the caller's identities",
      description:
        "Refused while it is the only way to sign in: an account without a password keeps its last identity.",
      tags: TAGS,
      operationId: "unlinkMyOAuthIdentity",
      auth: caller,
      request: { params: z.object({ identity_id: z.uuid() }) },
      responses: {
        204: { description: "Unlinked" },
        403: notAPerson,
        404: problemResponse("Not one of the caller's identities"),
        409: problemResponse("The only sign-in method of the account (type urn:service:problem:last-oauth-link)"),
      },
      handler: async ({ params, call }) => {
        await sso.unlinkMyIdentity({ identityId: params.identity_id }, call);
        return { status: 204 };
      },
    }),
  ];
}
