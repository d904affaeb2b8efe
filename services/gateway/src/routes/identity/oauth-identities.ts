// The caller's linked sign-in identities under /v1/users/me/oauth-identities (SsoService): list and unlink.
// People only: identity answers 403 to an API key.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { LinkedIdentity } from "@sca/proto/sca/identity/v1/sso_pb.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

const TAGS = ["users"];
const PATH = "/v1/users/me/oauth-identities";

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

const linkedIdentitySchema = z.object({
  id: z.uuid(),
  provider: z.string().meta({ description: "idp_a, idp_b or oidc" }),
  subject: z.string().meta({ description: "The person's identifier at the provider" }),
  email: z.string().nullable().meta({ description: "The provider's e-mail address at the latest sign-in" }),
  created_at: z.iso.datetime(),
  last_used_at: z.iso.datetime().nullable(),
}).meta({ id: "LinkedIdentity" });

function linkedIdentityJson(i: LinkedIdentity): z.input<typeof linkedIdentitySchema> {
  return {
    id: i.id, provider: i.provider, subject: i.subject, email: i.email ?? null,
    created_at: iso(i.createdAt)!, last_used_at: iso(i.lastUsedAt),
  };
}

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
        200: { description: "Oldest first", schema: z.object({ items: z.array(linkedIdentitySchema) }).meta({ id: "LinkedIdentities" }) },
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
      description: "Refused while it is the only way to sign in: an account without a password keeps its last identity.",
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
