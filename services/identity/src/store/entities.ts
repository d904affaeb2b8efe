import type { DatabaseOptions } from "@sca/db";
import { ApiKey } from "./entities/api-key.ts";
import { Group } from "./entities/group.ts";
import { KnownProject } from "./entities/known-project.ts";
import { Membership } from "./entities/membership.ts";
import { OAuthIdentity } from "./entities/oauth-identity.ts";
import { Organization } from "./entities/organization.ts";
import { User } from "./entities/user.ts";
import { PasswordResetCooldown, PasswordResetToken } from "./entities/password-reset.ts";
import { RefreshToken } from "./entities/refresh-token.ts";
import { RecoveryCode, TotpFactor } from "./entities/second-factor.ts";
import { SignInThrottle } from "./entities/sign-in-throttle.ts";

/** The tables of the identity schema. */
export const entities: DatabaseOptions["entities"] = [
  Organization,
  Group,
  User,
  Membership,
  ApiKey,
  RefreshToken,
  PasswordResetToken,
  PasswordResetCooldown,
  SignInThrottle,
  TotpFactor,
  RecoveryCode,
  OAuthIdentity,
  KnownProject,
];
