// One SSO sign-in from start to session: the authorization redirect, then at the callback the state and
// flow-cookie check, the code exchange (PKCE, and for oidc ID-token validation with the nonce), the person's
// profile, the account decision, linking or registration, the grades of the deployment's provider, and the
// session. Failures after the start never throw: they become a reason for the failure redirect.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "@sca/log";
import type { ClientAddress } from "@sca/proto/sca/common/v1/client_address_pb.ts";
import * as oidc from "openid-client";
import { gradeTeams } from "../domain/group-role-map.ts";
import { profileFromClaims, type OAuthProfile } from "../domain/oauth-profile.ts";
import { readSignIn, startSignIn } from "../domain/oauth-state.ts";
import { decideAccount } from "../domain/sso-account.ts";
import type { ProviderSettings, SsoConfig } from "../domain/sso-settings.ts";
import { clientActor } from "@sca/audit";
import { emitAudit } from "../events/account-events.ts";
import { recordSignIn } from "../store/accounts.ts";
import { identityBySubject, linkIdentity, touchIdentity } from "../store/oauth-identities.ts";
import { applyTeamGrades, knownAccountByEmail, knownAccountById, registerSsoAccount } from "../store/sso-accounts.ts";
import type { AccessAnswerCache } from "../store/access-answer-cache.ts";
import { issueSession, type SessionDeps } from "./sessions.ts";
import type { ProviderClients } from "../clients/sso-providers.ts";

export const FLOW_COOKIE_NAME = "sca_oauth_flow";

export interface SignInDeps {
  orm: MikroORM;
  secretKey: string;
  config: SsoConfig;
  clients: ProviderClients;
  /** Sessions are the accounts part's: the same refresh-token family and cookie as a password sign-in. */
  sessions: SessionDeps;
  logger: Logger;
  /** The gateway's cached access-token answers: dropped when an OIDC sign-in re-grades the person's teams. */
  accessAnswers: AccessAnswerCache;
}

export interface CallbackParams {
  code: string;
  state: string;
  error: string;
  iss: string;
  flowCookie: string;
  client: ClientAddress;
}

export type SignInResult =
  | { ok: true; redirectTo: string; userId: string; refreshToken: string; refreshExpiresAt: Date }
  | { ok: false; redirectTo: string; reason: string };

export function callbackUrl(config: SsoConfig, provider: string): string {
  return `${config.OAUTH_CALLBACK_BASE_URL}/auth/oauth/${provider}/callback`;
}

/** The browser-visible path of the OAuth routes, where the flow cookie belongs. */
export function flowCookiePath(config: SsoConfig): string {
  return `${new URL(config.OAUTH_CALLBACK_BASE_URL).pathname.replace(/\/+$/, "")}/auth/oauth`;
}

export async function beginSignIn(
  deps: SignInDeps,
  settings: ProviderSettings,
  redirectAfter: string | null,
): Promise<{ url: string; flowCookie: string; maxAge: number }> {
  const configuration = await deps.clients.configuration(settings);
  const start = await startSignIn({
    provider: settings.name,
    redirectAfter,
    ttlSeconds: deps.config.OAUTH_STATE_TTL_SECONDS,
    secretKey: deps.secretKey,
  });
  const parameters: Record<string, string> = {
    redirect_uri: callbackUrl(deps.config, settings.name),
    scope: settings.scopes.join(" "),
    state: start.state,
    code_challenge: await oidc.calculatePKCECodeChallenge(start.codeVerifier),
    code_challenge_method: "S256",
  };
  if (settings.kind === "oidc") parameters.nonce = start.nonce;
  const url = oidc.buildAuthorizationUrl(configuration, parameters);
  return { url: url.href, flowCookie: start.flowCookie, maxAge: start.expiresIn };
}

function failureUrl(config: SsoConfig, reason: string): string {
  const base = config.OAUTH_LOGIN_REDIRECT_FAILURE;
  return `${base}${base.includes("?") ? "&" : "?"}error=${encodeURIComponent(reason)}`;
}

/** The provider's answer (code exchange and claims) as a profile, or why it could not be had. */
async function exchange(
  deps: SignInDeps,
  settings: ProviderSettings,
  p: CallbackParams,
  flow: { codeVerifier: string; nonce: string },
): Promise<OAuthProfile | string> {
  let configuration: oidc.Configuration;
  try {
    configuration = await deps.clients.configuration(settings);
  } catch (err) {
    deps.logger.warn({ err, provider: settings.name }, "oauth provider unavailable at callback");
    return "oauth_provider_unavailable";
  }
  const current = new URL(callbackUrl(deps.config, settings.name));
  current.searchParams.set("code", p.code);
  current.searchParams.set("state", p.state);
  if (p.iss) current.searchParams.set("iss", p.iss);
  try {
    if (settings.kind === "oidc") {
      const tokens = await oidc.authorizationCodeGrant(configuration, current, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: p.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims()!;
      // Many providers put only `sub` in the ID token and the rest behind userinfo; the subject must agree.
      const userinfo = configuration.serverMetadata().userinfo_endpoint
        ? await oidc.fetchUserInfo(configuration, tokens.access_token, idClaims.sub)
        : {};
      return profileFromClaims({ ...userinfo, ...idClaims }, deps.config.OIDC_GROUPS_CLAIM) ?? "oauth_profile_invalid";
    }
    const tokens = await oidc.authorizationCodeGrant(configuration, current, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: p.state,
    });
    const userinfo = await oidc.fetchUserInfo(configuration, tokens.access_token, oidc.skipSubjectCheck);
    return profileFromClaims(userinfo, deps.config.OIDC_GROUPS_CLAIM) ?? "oauth_profile_invalid";
  } catch (err) {
    // The provider's messages are logged for the operator, never shown: they may echo codes or tokens.
    // Through the err serializer, which masks credentials inside the text.
    deps.logger.warn({ provider: settings.name, err }, "oauth code exchange failed");
    return "oauth_exchange_failed";
  }
}

export async function completeSignIn(
  deps: SignInDeps,
  settings: ProviderSettings,
  p: CallbackParams,
): Promise<SignInResult> {
  const fail = async (reason: string, who: { userId?: string; email?: string } = {}): Promise<SignInResult> => {
    const em = deps.orm.em.fork();
    emitAudit(em, {
      action: "auth.login.failed",
      actor: clientActor(p.client, who),
      targetId: who.userId ?? "",
      outcome: "failure",
      details: { method: "oauth", provider: settings.name, reason },
      at: new Date(),
    });
    await em.flush();
    return { ok: false, reason, redirectTo: failureUrl(deps.config, reason) };
  };
  if (p.error) return fail(p.error === "access_denied" ? "oauth_denied" : "oauth_error");
  if (!settings.configured) return fail("oauth_provider_disabled");
  if (!p.code || !p.state) return fail("invalid_state");
  const reading = await readSignIn({
    provider: settings.name,
    state: p.state,
    flowCookie: p.flowCookie,
    secretKey: deps.secretKey,
  });
  if (!reading.ok) return fail(reading.reason);

  const profile = await exchange(deps, settings, p, reading.flow);
  if (typeof profile === "string") return fail(profile);

  const now = new Date();
  const outcome = await deps.orm.em.fork().transactional(async (em) => {
    const linked = await identityBySubject(em, settings.name, profile.subject);
    const decision = decideAccount({
      profile,
      linked: linked ? await knownAccountById(em, linked.userId) : null,
      sameEmail: !linked && profile.email ? await knownAccountByEmail(em, profile.email) : null,
      autoRegister: deps.config.AUTH_AUTO_REGISTER,
    });
    let userId: string;
    const linkedAudit = (id: string) =>
      emitAudit(em, {
        action: "oauth_identity.linked",
        actor: clientActor(p.client, { userId: id, email: profile.email ?? "" }),
        targetId: id,
        outcome: "success",
        details: { provider: settings.name },
        at: now,
      });
    switch (decision.kind) {
      case "refuse":
        return { ok: false as const, reason: decision.reason, userId: linked?.userId };
      case "sign_in":
        userId = decision.userId;
        await touchIdentity(em, linked!.id, profile.email, now);
        break;
      case "link":
        userId = (
          await linkIdentity(em, {
            userId: decision.userId,
            provider: settings.name,
            subject: profile.subject,
            email: profile.email,
            at: now,
          })
        ).userId;
        linkedAudit(userId);
        break;
      case "register": {
        const created = await registerSsoAccount(em, { email: decision.email, fullName: profile.name });
        if (!created) return { ok: false as const, reason: "account_conflict", userId: undefined };
        userId = (
          await linkIdentity(em, {
            userId: created,
            provider: settings.name,
            subject: profile.subject,
            email: profile.email,
            at: now,
          })
        ).userId;
        emitAudit(em, {
          action: "auth.registered",
          actor: clientActor(p.client, { userId, email: decision.email }),
          targetId: userId,
          outcome: "success",
          details: { method: "oauth", provider: settings.name },
          at: now,
        });
        linkedAudit(userId);
        break;
      }
    }
    if (settings.kind === "oidc") {
      await applyTeamGrades(
        em,
        userId,
        gradeTeams(deps.config.OIDC_GROUP_ROLE_MAP, deps.config.DEFAULT_MEMBER_ROLE, profile.groups),
      );
    }
    await recordSignIn(em, userId, now);
    emitAudit(em, {
      action: "auth.login.succeeded",
      actor: clientActor(p.client, { userId, email: profile.email ?? "" }),
      targetId: userId,
      outcome: "success",
      details: { method: "oauth", provider: settings.name },
      at: now,
    });
    return { ok: true as const, userId, session: await issueSession(em, deps.sessions, userId, now) };
  });
  if (!outcome.ok) return fail(outcome.reason, { userId: outcome.userId, email: profile.email ?? undefined });
  // The grades may have changed the person's memberships: their other sessions' cached answers must not outlive that.
  if (settings.kind === "oidc") await deps.accessAnswers.forgetAll();
  return {
    ok: true,
    userId: outcome.userId,
    redirectTo: reading.flow.redirectAfter ?? deps.config.OAUTH_LOGIN_REDIRECT_DEFAULT,
    refreshToken: outcome.session.refreshToken,
    refreshExpiresAt: timestampDate(outcome.session.refreshExpiresAt!),
  };
}
