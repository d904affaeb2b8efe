// The identity service started by the test kit (its own definition, as main.ts runs it) with the fixtures its tests
// share: named clients of every Connect service it registers, users made in its database, call options as a
// bearer (the caller token AccessService.Authenticate answers, as the gateway forwards it), and a Redis namespace
// of its own for the API-key answers it shares with the gateway.
import type { Client } from "@connectrpc/connect";
import { loadConfig } from "@sca/config";
import type { KafkaClient } from "@sca/kafka";
import type { Logger } from "@sca/log";
import { AccessService } from "@sca/proto/sca/identity/v1/access_pb.ts";
import { AccountService, AdminUserService } from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { ApiKeyService } from "@sca/proto/sca/identity/v1/api_keys_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { SsoService } from "@sca/proto/sca/identity/v1/sso_pb.ts";
import { createRedis, type Redis } from "@sca/redis";
import { fixtures } from "../fixtures.ts";
import { callAs, startService, testServers, uniqueName, type CallOptions } from "@sca/testkit";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { CustomFetch } from "openid-client";
import { ssoKeys, type SsoConfig } from "../../src/domain/sso-settings.ts";
import { accountKeys, type AccountSettings } from "../../src/rpc/account-settings.ts";
import { service } from "../../src/service.ts";

export interface IdentityOptions {
  /** Configuration on top of the test defaults (AUTH_SELF_REGISTRATION, LOGIN_THROTTLE_*, OIDC_*, ...). */
  env?: Record<string, string>;
  /** How SSO reaches the providers (a test provider's fetch, which trusts the test CA). */
  providerFetch?: CustomFetch;
  /** Where its log lines go; by default errors only, to stdout. */
  logger?: Logger;
  /** false: no server; the clients call its handlers through the in-memory router transport. */
  listen?: boolean;
}

/** The Connect services it registers, under the names the harness gives their clients. */
const SERVICES = {
  access: AccessService,
  accounts: AccountService,
  admin: AdminUserService,
  directory: DirectoryService,
  apiKeys: ApiKeyService,
  sso: SsoService,
} as const;

export type IdentityClients = { [Name in keyof typeof SERVICES]: Client<(typeof SERVICES)[Name]> };

export interface IdentityHarness extends IdentityClients {
  orm: MikroORM;
  schema: string;
  /** Its Kafka client: its topics are this run's (EventReader reads them through it). */
  kafka: KafkaClient;
  /** http://127.0.0.1:<port> ("" when started without a server) */
  url: string;
  settings: AccountSettings;
  ssoConfig: SsoConfig;
  /** A connection to the Redis it uses. */
  redis: Redis;
  /** Redis namespace of the cached API-key answers of this run. */
  answerNamespace: string;
  /** A user row made directly in the database. */
  user(opts?: { superAdmin?: boolean; active?: boolean }): Promise<string>;
  /** Call options carrying the caller token Authenticate answers for this bearer (an access token or a key). */
  asBearer(bearer: string): Promise<CallOptions>;
  /** Call options that make the call as this user (with a fresh access token as the bearer). */
  as(userId: string): Promise<CallOptions>;
  close(): Promise<void>;
}

/** What the harness's identity is configured with unless a test says otherwise. */
const TEST_ENV = { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password" };

export async function startIdentity(opts: IdentityOptions = {}): Promise<IdentityHarness> {
  const env = { ...TEST_ENV, ...opts.env };
  const answerNamespace = `${uniqueName("identity_answers")}:`;
  const identity = await startService(service, {
    env,
    logger: opts.logger,
    poolMax: 6,
    listen: opts.listen,
    seams: {
      apiKeyAnswerNamespace: answerNamespace,
      accessAnswerNamespace: `${answerNamespace}access:`,
      providerFetch: opts.providerFetch,
    },
  });
  const redis = createRedis(testServers().redisUrl, identity.logger);
  const clients = Object.fromEntries(
    Object.entries(SERVICES).map(([name, desc]) => [name, identity.client(desc)]),
  ) as IdentityClients;
  const asBearer = async (bearer: string) => {
    const { callerToken } = await clients.access.authenticate({
      bearer,
      client: { ip: "203.0.113.9", userAgent: "jest" },
    });
    return callAs.token(callerToken);
  };
  return {
    ...clients,
    orm: identity.orm,
    schema: identity.schema,
    kafka: identity.kafka!,
    url: identity.url ?? "",
    settings: loadConfig(accountKeys, env),
    ssoConfig: loadConfig(ssoKeys, env),
    redis,
    answerNamespace,
    user: (u) => fixtures.user(identity.orm, u),
    asBearer,
    async as(userId) {
      return asBearer(await fixtures.accessToken(userId));
    },
    async close() {
      redis.disconnect();
      await identity.close();
    },
  };
}
