// The one test secret and the one way tests make a call as someone: call options carrying a caller token, as the
// gateway forwards it. `callAs.token` wraps a token a service answered (AccessService.Authenticate); the others
// sign one for a caller the test describes, for a service whose test needs no identity.
import { ANONYMOUS, CALLER_HEADER, callerToken, type ApiKeyGrant, type Caller, type Membership } from "@sca/rpc";

/** SECRET_KEY of every service a test starts. */
export const TEST_SECRET = "test-secret-key-that-is-at-least-32-characters";

/** Connect call options (the second argument of a client method). */
export interface CallOptions {
  headers: Record<string, string>;
}

// A token lives 60 s and a test file keeps its callers for minutes (longer on a loaded machine), so the headers are
// signed anew each time a call reads them.
const signed = (caller: Caller): Promise<CallOptions> =>
  Promise.resolve({
    get headers() {
      return { [CALLER_HEADER]: callerToken(caller, TEST_SECRET) };
    },
  });

export const callAs = {
  /** Call options carrying this caller token. */
  token(callerToken: string): CallOptions {
    return { headers: { [CALLER_HEADER]: callerToken } };
  },
  /** A person with these effective memberships. */
  user(userId: string, opts: { email?: string; memberships?: Membership[] } = {}): Promise<CallOptions> {
    return signed({
      ...ANONYMOUS,
      kind: "user",
      user_id: userId,
      email: opts.email ?? `${userId}@example.com`,
      memberships: opts.memberships ?? [],
    });
  },
  /** Another service calling on its own behalf (e.g. "scanner-runner"), as serviceCallerToken signs it. */
  service(name: string): Promise<CallOptions> {
    return signed({ ...ANONYMOUS, kind: "service", service: name });
  },
  superAdmin(userId: string): Promise<CallOptions> {
    return signed({ ...ANONYMOUS, kind: "user", user_id: userId, email: `${userId}@example.com`, is_superuser: true });
  },
  /** An API key with this grant, issued by `userId` (or a service account). */
  apiKey(
    keyId: string,
    grant: ApiKeyGrant,
    opts: { userId?: string; memberships?: Membership[] } = {},
  ): Promise<CallOptions> {
    return signed({
      ...ANONYMOUS,
      kind: "api_key",
      api_key_id: keyId,
      api_key: grant,
      user_id: opts.userId ?? null,
      memberships: opts.memberships ?? [],
    });
  },
};
