// The signed-in session: the access token lives in memory only (never in storage a script could read); the refresh
// token is the API's HttpOnly cookie. An answer of 401 refreshes once and repeats the request; when the refresh is
// refused the session has expired and the app goes to /login?next=<where the user was>.
import { createApiClient, type Middleware, type Schemas } from "@sca/api-client";

let accessToken: string | null = null;
let refreshing: Promise<boolean> | null = null;
const listeners = new Set<() => void>();

export function isSignedIn(): boolean {
  return accessToken !== null;
}

export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setToken(token: string | null): void {
  accessToken = token;
  for (const l of listeners) l();
}

export function signedIn(tokens: Schemas["TokenResponse"]): void {
  setToken(tokens.access_token);
}

/** Exchanges the refresh cookie for a new access token; false when there is no valid one. Concurrent callers share one. */
export function refresh(): Promise<boolean> {
  refreshing ??= fetch("/api/v1/auth/refresh", { method: "POST", credentials: "same-origin" })
    .then(async (res) => {
      if (!res.ok) return false;
      signedIn((await res.json()) as Schemas["TokenResponse"]);
      return true;
    })
    .catch(() => false)
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

export function bearer(): string | null {
  return accessToken;
}

export function signedOut(): void {
  setToken(null);
}

export function expiredSessionRedirect(): void {
  signedOut();
  const here = window.location.pathname + window.location.search;
  if (window.location.pathname !== "/login")
    window.location.assign(`/login?next=${encodeURIComponent(here)}&expired=1`);
}

const authorization: Middleware = {
  onRequest({ request }) {
    if (accessToken) request.headers.set("Authorization", `Bearer ${accessToken}`);
    return request;
  },
};

// The request is kept (a clone) so that it can be sent again after the refresh.
const retries = new WeakMap<Request, Request>();
const retryAfterRefresh: Middleware = {
  onRequest({ request }) {
    retries.set(request, request.clone());
    return request;
  },
  async onResponse({ request, response }) {
    if (response.status !== 401 || !accessToken || new URL(request.url).pathname.startsWith("/api/v1/auth/"))
      return response;
    const again = retries.get(request);
    if (!(await refresh()) || !again) {
      expiredSessionRedirect();
      return response;
    }
    again.headers.set("Authorization", `Bearer ${accessToken}`);
    return fetch(again);
  },
};

export const api = createApiClient({ baseUrl: `${window.location.origin}/api`, credentials: "same-origin" });
api.use(retryAfterRefresh, authorization);
