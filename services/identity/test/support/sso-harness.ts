// An identity server with SsoService (and AccountService, to prove the issued refresh token is a real session)
// on an ephemeral port over its own schema, signing people in at a real local OpenID provider over https.
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { MikroORM } from "@mikro-orm/postgresql";
import { loadConfig } from "@sca/config";
import { migrateToHead, openDatabase } from "@sca/db";
import { OutboxMessage } from "@sca/kafka";
import { createLogger } from "@sca/log";
import { AccountService } from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { SsoService } from "@sca/proto/sca/identity/v1/sso_pb.ts";
import { CALLER_HEADER, HealthRegistry, signCallerToken, startRpcServer } from "@sca/rpc";
import { testServers, uniqueName } from "@sca/testkit";
import { ssoKeys, type SsoConfig } from "../../src/domain/sso-settings.ts";
import { registerAccountService } from "../../src/rpc/account-service.ts";
import { accountKeys } from "../../src/rpc/account-settings.ts";
import { createProviderClients } from "../../src/rpc/sso-providers.ts";
import { registerSsoService } from "../../src/rpc/sso-service.ts";
import { userCaller } from "../../src/store/callers.ts";
import { entities } from "../../src/store/entities.ts";
import { migrations } from "../../src/store/migrations/index.ts";
import { startTestProvider, type TestProvider } from "./oidc-provider.ts";

export const SECRET = "test-secret-key-that-is-at-least-32-characters";
export const CALLBACK_BASE = "https://portal.test/api";

export interface SsoHarness {
  orm: MikroORM;
  provider: TestProvider;
  config: SsoConfig;
  sso: Client<typeof SsoService>;
  accounts: Client<typeof AccountService>;
  as(userId: string): Promise<{ headers: Record<string, string> }>;
  close(): Promise<void>;
}

export async function startSso(env: Record<string, string> = {}): Promise<SsoHarness> {
  const provider = await startTestProvider({ redirectUris: [`${CALLBACK_BASE}/auth/oauth/oidc/callback`] });
  const logger = createLogger("identity-sso-test", "ERROR");
  const schema = uniqueName("identity_sso");
  const orm = await openDatabase({ url: testServers().databaseUrl, schema, entities: [...entities, OutboxMessage], migrations, logger, poolMax: 4 });
  await migrateToHead(orm);
  const config = loadConfig(ssoKeys, {
    OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret,
    OIDC_SCOPES: "email profile groups", OAUTH_CALLBACK_BASE_URL: CALLBACK_BASE,
    OAUTH_LOGIN_REDIRECT_DEFAULT: "/dashboard", OAUTH_LOGIN_REDIRECT_FAILURE: "https://portal.test/login", ...env,
  });
  const sessions = { secretKey: SECRET, settings: loadConfig(accountKeys, {}) };
  const clients = createProviderClients({ timeoutSeconds: config.OAUTH_HTTP_TIMEOUT_SECONDS, fetch: provider.fetch });
  const server = await startRpcServer({
    service: "identity", port: 0, logger, secretKey: SECRET, health: new HealthRegistry(), readMaxBytes: 1 << 20,
    routes: (router) => {
      registerSsoService(router, { orm, secretKey: SECRET, config, clients, sessions, logger });
      registerAccountService(router, { orm, secretKey: SECRET, settings: sessions.settings });
    },
  });
  const transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${server.port}` });
  return {
    orm, provider, config,
    sso: createClient(SsoService, transport),
    accounts: createClient(AccountService, transport),
    async as(userId) {
      const caller = await userCaller(orm.em.fork(), userId, { cascade: true, ip: "203.0.113.9", userAgent: "jest" });
      if (!caller) throw new Error(`no active user ${userId}`);
      return { headers: { [CALLER_HEADER]: await signCallerToken(caller, SECRET) } };
    },
    async close() {
      await server.close(1000);
      await provider.close();
      await orm.em.getConnection().execute(`drop schema if exists "${schema}" cascade`);
      await orm.close();
    },
  };
}
