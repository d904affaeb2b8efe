// The providers as openid-client configurations. The deployment's own provider (oidc) is read from its
// discovery document on first use and kept for an hour; a document that breaks the host rules is refused
// (and asked for again next time, so a fixed provider recovers without a restart). Hosted providers are
// described by their configured endpoints.
import * as oidc from "openid-client";
import { discoveryDocumentProblem } from "../domain/oidc-discovery.ts";
import type { ProviderSettings } from "../domain/sso-settings.ts";

const DISCOVERY_REUSE_MS = 60 * 60 * 1000;

export class ProviderUnavailable extends Error {}

export interface ProviderClients {
  configuration(settings: ProviderSettings): Promise<oidc.Configuration>;
}

export function createProviderClients(opts: {
  timeoutSeconds: number;
  fetch?: oidc.CustomFetch;
  now?: () => number;
}): ProviderClients {
  const now = opts.now ?? Date.now;
  const discovered = new Map<string, { at: number; config: oidc.Configuration }>();
  const withTransport = (config: oidc.Configuration) => {
    config.timeout = opts.timeoutSeconds;
    if (opts.fetch) config[oidc.customFetch] = opts.fetch;
    return config;
  };

  async function discover(issuer: string, clientId: string, clientSecret: string): Promise<oidc.Configuration> {
    const hit = discovered.get(issuer);
    if (hit && now() - hit.at < DISCOVERY_REUSE_MS) return hit.config;
    let config: oidc.Configuration;
    try {
      config = await oidc.discovery(new URL(issuer), clientId, clientSecret, undefined, {
        timeout: opts.timeoutSeconds,
        ...(opts.fetch ? { [oidc.customFetch]: opts.fetch } : {}),
      });
    } catch (err) {
      throw new ProviderUnavailable(`discovery of ${issuer} failed: ${(err as Error).message}`);
    }
    const problem = discoveryDocumentProblem({ ...config.serverMetadata() }, issuer);
    if (problem) throw new ProviderUnavailable(`discovery document of ${issuer} refused: ${problem}`);
    discovered.set(issuer, { at: now(), config: withTransport(config) });
    return config;
  }

  return {
    configuration(settings) {
      if (settings.kind === "oidc") return discover(settings.issuer, settings.clientId, settings.clientSecret);
      // Hosted providers name no issuer of their own here; the authorization endpoint's origin stands in.
      return Promise.resolve(
        withTransport(
          new oidc.Configuration(
            {
              issuer: new URL(settings.authorizeUrl).origin,
              authorization_endpoint: settings.authorizeUrl,
              token_endpoint: settings.tokenUrl,
              userinfo_endpoint: settings.userinfoUrl,
            },
            settings.clientId,
            settings.clientSecret,
          ),
        ),
      );
    },
  };
}
