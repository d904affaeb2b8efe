// Cookies at the edge: reading one from the request, and the refresh cookie of a session. The refresh token only
// ever travels in this HttpOnly cookie, scoped to the authentication routes; login and SSO sign-in write it alike.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Request, Response } from "express";
import type { Session } from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import type { GatewayConfig } from "../config.ts";
import { AUTH_PREFIXES } from "./auth-paths.ts";
import { PUBLIC_PREFIX } from "./canonical-path.ts";

export const REFRESH_COOKIE = "refresh_token";
// Browsers see the /api prefix the proxy strips; one cookie per prefix, so neither covers the rest of /api.
const REFRESH_COOKIE_PATHS = AUTH_PREFIXES.map((p) => `${PUBLIC_PREFIX}${p}`);

/** The value of cookie `name` (the first one: the most specific path comes first), or "". */
export function cookieValue(req: Request, name: string): string {
  for (const pair of (req.get("cookie") ?? "").split(";")) {
    const at = pair.indexOf("=");
    if (at === -1 || pair.slice(0, at).trim() !== name) continue;
    try {
      return decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      return "";
    }
  }
  return "";
}

type CookieConfig = Pick<GatewayConfig, "APP_ENV">;

const refreshCookieOptions = (config: CookieConfig) => ({
  httpOnly: true,
  sameSite: "strict" as const,
  secure: config.APP_ENV !== "dev",
});

/** What the refresh cookie is made of: a password sign-in's Session or an SSO sign-in's SignInSession. */
export type RefreshCookieSource = Pick<Session, "refreshToken" | "refreshExpiresAt">;

/** Sets the refresh cookie of a new session on both paths, for the rest of the session's lifetime. */
export function refreshCookieWriter(config: CookieConfig): (res: Response, session: RefreshCookieSource) => void {
  const options = refreshCookieOptions(config);
  return (res, session) => {
    const maxAge = session.refreshExpiresAt ? timestampDate(session.refreshExpiresAt).getTime() - Date.now() : 0;
    for (const path of REFRESH_COOKIE_PATHS)
      res.cookie(REFRESH_COOKIE, session.refreshToken, { ...options, path, maxAge });
  };
}

/** Clears the refresh cookie on both paths. */
export function refreshCookieClearer(config: CookieConfig): (res: Response) => void {
  const options = refreshCookieOptions(config);
  return (res) => {
    for (const path of REFRESH_COOKIE_PATHS) res.clearCookie(REFRESH_COOKIE, { ...options, path });
  };
}
