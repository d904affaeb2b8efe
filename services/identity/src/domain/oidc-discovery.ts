// Rules for the deployment's own OpenID provider (OIDC_ISSUER): the issuer must be https, and every endpoint
// its discovery document names must be https on the issuer's own host, so a tampered or careless document
// cannot send codes, tokens or key look-ups anywhere else.

/** The issuer as configured, or an error message naming the rule it breaks. */
export function checkIssuer(raw: string): { ok: true; issuer: string } | { ok: false; message: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: "must be an https URL such as https://login.example.com/realms/main" };
  }
  if (url.protocol !== "https:") return { ok: false, message: "must use https" };
  if (url.search || url.hash || url.username || url.password) {
    return { ok: false, message: "must not carry a query, fragment or credentials" };
  }
  return { ok: true, issuer: raw };
}

// Members of a discovery document that are endpoints the client may call or send the browser to.
// Informational links (service_documentation, op_policy_uri, op_tos_uri) are not endpoints.
function endpointsOf(doc: Record<string, unknown>): [string, unknown][] {
  const found: [string, unknown][] = [];
  for (const [name, value] of Object.entries(doc)) {
    if (name.endsWith("_endpoint") || name === "jwks_uri" || name === "check_session_iframe") found.push([name, value]);
  }
  const aliases = doc.mtls_endpoint_aliases;
  if (aliases && typeof aliases === "object") {
    for (const [name, value] of Object.entries(aliases)) found.push([`mtls_endpoint_aliases.${name}`, value]);
  }
  return found;
}

/** Null when the document may be used for `issuer`, else why not. */
export function discoveryDocumentProblem(doc: Record<string, unknown>, issuer: string): string | null {
  if (doc.issuer !== issuer) return `issuer "${String(doc.issuer)}" differs from the configured issuer`;
  for (const required of ["authorization_endpoint", "token_endpoint", "jwks_uri"]) {
    if (typeof doc[required] !== "string") return `${required} is missing`;
  }
  const host = new URL(issuer).host;
  for (const [name, value] of endpointsOf(doc)) {
    if (typeof value !== "string") return `${name} is not a URL`;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return `${name} is not a URL`;
    }
    if (url.protocol !== "https:") return `${name} does not use https`;
    if (url.host !== host) return `${name} is on ${url.host}, not on the issuer's host ${host}`;
  }
  return null;
}

/** OIDC_SCOPES as a list: whitespace or comma separated, duplicates dropped, `openid` first and always present. */
export function oidcScopes(raw: string): string[] {
  const scopes = raw.split(/[\s,]+/).filter((s) => s.length > 0 && s !== "openid");
  return ["openid", ...new Set(scopes)];
}
