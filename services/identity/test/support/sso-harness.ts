// An identity (identity-harness.ts) signing people in at a real local OpenID provider over https (the test kit's),
// the provider configured as `oidc` with its callback under CALLBACK_BASE.
import type { Logger } from "@sca/log";
import { closeTogether, startTestProvider, type TestProvider } from "@sca/testkit";
import { startIdentity, type IdentityHarness } from "./identity-harness.ts";

export const CALLBACK_BASE = "https://portal.test/api";

export interface SsoHarness extends IdentityHarness {
  provider: TestProvider;
}

/** `env` on top of the provider's SSO settings; `logger` as in startIdentity. */
export async function startSso(env: Record<string, string> = {}, logger?: Logger): Promise<SsoHarness> {
  const provider = await startTestProvider({ redirectUris: [`${CALLBACK_BASE}/auth/oauth/oidc/callback`] });
  const identity = await startIdentity({
    env: {
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_SCOPES: "email profile groups",
      OAUTH_CALLBACK_BASE_URL: CALLBACK_BASE,
      OAUTH_LOGIN_REDIRECT_DEFAULT: "/dashboard",
      OAUTH_LOGIN_REDIRECT_FAILURE: "https://portal.test/login",
      ...env,
    },
    providerFetch: provider.fetch,
    logger,
  });
  return {
    ...identity,
    provider,
    async close() {
      await closeTogether([identity, provider]);
    },
  };
}
