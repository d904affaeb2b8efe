// Keyless signing's identity (docs/signing.md, "Keyless"): the issuer a workload identity token names, and the
// identity a Fulcio certificate binds, as VERIFY.md's --certificate-oidc-issuer and --certificate-identity.

/** The `iss` claim of a JWT (not verified here: Fulcio verifies the token), or null when it is not a JWT. */
export function tokenIssuer(token: string): string | null {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"));
    const iss = (claims as { iss?: unknown } | null)?.iss;
    return typeof iss === "string" && iss !== "" ? iss : null;
  } catch {
    return null;
  }
}

/**
 * The identity a certificate's subjectAltName binds (node's X509Certificate.subjectAltName, e.g.
 * `email:ci@example.com` or `URI:https://kubernetes.io/namespaces/ns/serviceaccounts/sa`): its first email or URI,
 * what cosign's --certificate-identity matches; null when it has neither.
 */
export function certificateIdentity(subjectAltName: string | undefined): string | null {
  for (const entry of (subjectAltName ?? "").split(", ")) {
    const match = /^(email|URI):(.+)$/.exec(entry);
    if (match) return match[2]!.replace(/^"|"$/g, "");
  }
  return null;
}
