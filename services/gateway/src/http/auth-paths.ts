// The authentication routes live under two prefixes (the spec lists each under both): the refresh cookie is
// scoped to them, demo read-only lets them through, and their operationIds stay unique across the two.
export const AUTH_PREFIXES = ["/v1/auth", "/auth"] as const;
export type AuthPrefix = (typeof AUTH_PREFIXES)[number];

export const AUTH_TAGS = ["auth"];

/** A path under one of the authentication prefixes (or the prefix itself). */
export function isAuthPath(path: string): boolean {
  return AUTH_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
}

/** operationIds stay unique across the two prefixes: the unversioned copy gets a suffix. */
export function authOperationId(prefix: AuthPrefix, name: string): string {
  return prefix === "/v1/auth" ? name : `${name}Unversioned`;
}
