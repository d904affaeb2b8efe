// Opening a session: a new refresh-token family and an access token.
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager } from "@mikro-orm/postgresql";
import { SessionSchema, type Session } from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { issueAccessToken } from "../domain/access-token.ts";
import { newOpaqueToken } from "../domain/opaque-token.ts";
import { refreshExpiry } from "../domain/refresh-rotation.ts";
import { insertRefreshToken } from "../store/refresh-tokens.ts";
import type { AccountSettings } from "./account-settings.ts";

export interface SessionDeps {
  secretKey: string;
  settings: AccountSettings;
}

/** Issues the next refresh token of `familyId` (a new family for a sign-in) and an access token. */
export async function issueSession(
  em: EntityManager,
  deps: SessionDeps,
  userId: string,
  now: Date,
  familyId: string = randomUUID(),
): Promise<Session> {
  const refresh = newOpaqueToken();
  const expiresAt = refreshExpiry(now, deps.settings.REFRESH_TOKEN_EXPIRE_DAYS);
  await insertRefreshToken(em, { userId, familyId, hash: refresh.hash, expiresAt });
  // The access token names its session, so ending the session ends the token too (AccessService.Authenticate).
  const access = await issueAccessToken(
    userId,
    deps.secretKey,
    deps.settings.ACCESS_TOKEN_EXPIRE_MINUTES,
    now,
    familyId,
  );
  return create(SessionSchema, {
    accessToken: access.token,
    expiresIn: access.expiresIn,
    refreshToken: refresh.raw,
    refreshExpiresAt: timestampFromDate(expiresAt),
  });
}
