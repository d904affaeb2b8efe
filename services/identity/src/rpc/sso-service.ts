// SsoService: the provider list, the sign-in flow, and the caller's linked identities.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { ProblemError } from "@sca/problem";
import {
  BeginSignInResponseSchema,
  CompleteSignInResponseSchema,
  ListMyIdentitiesResponseSchema,
  ListProvidersResponseSchema,
  SsoService,
  UnlinkMyIdentityResponseSchema,
} from "@sca/proto/sca/identity/v1/sso_pb.ts";
import { clientAddressFrom, requirePerson } from "@sca/rpc";
import { callerActor } from "@sca/audit";
import { emitAudit } from "../events/account-events.ts";
import { safeRedirectPath } from "../domain/redirect-safety.ts";
import { isProviderName, providerSettings, type ProviderSettings } from "../domain/sso-settings.ts";
import { identitiesOf, unlinkIdentity } from "../store/oauth-identities.ts";
import { ProviderUnavailable } from "../clients/sso-providers.ts";
import { beginSignIn, completeSignIn, FLOW_COOKIE_NAME, flowCookiePath, type SignInDeps } from "./sso-sign-in.ts";
import { isUuid } from "./fields.ts";

// Linked identities belong to people; an API key acts for no person's sign-in methods.
const peopleOnly = () => ProblemError.forbidden("Only a signed-in person has linked identities.");

export function registerSsoService(router: ConnectRouter, deps: SignInDeps): void {
  const providers = providerSettings(deps.config);
  const provider = (name: string): ProviderSettings => {
    const found = isProviderName(name) ? providers.find((p) => p.name === name) : undefined;
    if (!found) throw ProblemError.notFound(`Unknown OAuth provider "${name}".`);
    return found;
  };

  router.service(SsoService, {
    listProviders() {
      return create(ListProvidersResponseSchema, {
        providers: providers.map((p) => ({ name: p.name, configured: p.configured })),
      });
    },

    async beginSignIn(req) {
      const settings = provider(req.provider);
      if (!settings.configured) {
        throw new ProblemError({
          status: 503,
          code: "oauth_provider_disabled",
          detail: `Sign-in with ${settings.name} is not configured.`,
          extensions: { oauth_provider_disabled: true },
        });
      }
      try {
        const started = await beginSignIn(deps, settings, safeRedirectPath(req.redirectAfter));
        return create(BeginSignInResponseSchema, {
          authorizationUrl: started.url,
          flowCookie: {
            name: FLOW_COOKIE_NAME,
            value: started.flowCookie,
            path: flowCookiePath(deps.config),
            maxAgeSeconds: started.maxAge,
          },
        });
      } catch (err) {
        if (!(err instanceof ProviderUnavailable)) throw err;
        deps.logger.warn({ err, provider: settings.name }, "oauth provider unavailable");
        throw new ProblemError({
          status: 503,
          code: "oauth_provider_unavailable",
          detail: `Sign-in with ${settings.name} is unavailable right now.`,
        });
      }
    },

    async completeSignIn(req) {
      const result = await completeSignIn(deps, provider(req.provider), {
        code: req.code,
        state: req.state,
        error: req.error,
        iss: req.iss,
        flowCookie: req.flowCookie,
        client: clientAddressFrom(req.client),
      });
      if (!result.ok) {
        deps.logger.info({ provider: req.provider, reason: result.reason }, "sso sign-in failed");
        return create(CompleteSignInResponseSchema, { redirectTo: result.redirectTo, failureReason: result.reason });
      }
      return create(CompleteSignInResponseSchema, {
        redirectTo: result.redirectTo,
        session: {
          userId: result.userId,
          refreshToken: result.refreshToken,
          refreshExpiresAt: timestampFromDate(result.refreshExpiresAt),
        },
      });
    },

    async listMyIdentities(_req, ctx) {
      const userId = requirePerson(ctx, peopleOnly).user_id;
      const rows = await identitiesOf(deps.orm.em.fork(), userId);
      return create(ListMyIdentitiesResponseSchema, {
        items: rows.map((r) => ({
          id: r.id,
          provider: r.provider,
          subject: r.subject,
          email: r.email ?? undefined,
          createdAt: timestampFromDate(r.createdAt),
          lastUsedAt: r.lastUsedAt ? timestampFromDate(r.lastUsedAt) : undefined,
        })),
      });
    },

    async unlinkMyIdentity(req, ctx) {
      const caller = requirePerson(ctx, peopleOnly);
      const userId = caller.user_id;
      if (!isUuid(req.identityId)) throw ProblemError.notFound();
      const result = await deps.orm.em.fork().transactional(async (em) => {
        const unlinked = await unlinkIdentity(em, userId, req.identityId);
        if (unlinked.kind === "unlinked") {
          emitAudit(em, {
            action: "oauth_identity.unlinked",
            actor: callerActor(caller),
            targetId: userId,
            outcome: "success",
            details: { provider: unlinked.identity.provider, identity_id: unlinked.identity.id },
            at: new Date(),
          });
        }
        return unlinked;
      });
      if (result.kind === "not_found") throw ProblemError.notFound();
      if (result.kind === "last_sign_in_method") {
        throw new ProblemError({
          status: 409,
          code: "last_oauth_link",
          typeUri: "urn:service:problem:last-oauth-link",
          detail: "This is the only way to sign in to the account: set a password or link another identity first.",
        });
      }
      return create(UnlinkMyIdentityResponseSchema, {});
    },
  });
}
