// Who the provider says signed in, read from ID-token and userinfo claims.
// Assumed claims: `sub` (hosted providers that answer a numeric `id` instead are accepted), `email`,
// `email_verified` (absent counts as unverified), `name`, and the groups claim (OIDC_GROUPS_CLAIM) as a list
// of strings or one space-separated string.

export interface OAuthProfile {
  subject: string;
  /** Lower-cased. */
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  groups: string[];
}

const MAX_SUBJECT = 255;

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() ? value.trim() : null;
}

/** The profile, or null when the claims carry no usable subject. */
export function profileFromClaims(claims: Record<string, unknown>, groupsClaim: string): OAuthProfile | null {
  const rawSubject = claims.sub ?? claims.id;
  const subject =
    typeof rawSubject === "number" && Number.isSafeInteger(rawSubject) ? String(rawSubject) : text(rawSubject);
  if (!subject || subject.length > MAX_SUBJECT) return null;
  const email = text(claims.email)?.toLowerCase() ?? null;
  const rawGroups = claims[groupsClaim];
  const groups = Array.isArray(rawGroups)
    ? rawGroups.filter((g): g is string => typeof g === "string")
    : typeof rawGroups === "string"
      ? rawGroups.split(/\s+/).filter(Boolean)
      : [];
  return {
    subject,
    email,
    emailVerified: email !== null && (claims.email_verified === true || claims.email_verified === "true"),
    name: text(claims.name),
    groups,
  };
}
