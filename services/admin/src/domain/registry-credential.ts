// An organization's container-registry login (the spec's Registry login): what a valid one is. The registry host is
// kept as an image reference names it (lower-case host and a non-default port, no scheme, path or credentials), so a
// URL pasted from a browser and the host typed by hand name the same login; the password is write-only and only
// ever stored sealed.

const MAX_HOST = 255;
const MAX_USERNAME = 255;
const MAX_PASSWORD = 4096;
// A DNS name or an IPv4 address: labels of letters, digits and hyphens.
const HOST_NAME = /^(?=.{1,255}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

export interface RegistryLoginInput {
  registryHost: string;
  username: string;
  password: string;
  allowed: boolean | undefined;
}

export interface RegistryLogin {
  registryHost: string;
  username: string;
  password: string;
  allowed: boolean;
}

export type FieldProblem = { path: string; message: string };

/** The registry of `raw` (a host[:port], or a URL) as host[:port], or null when it names none. */
export function registryHostOf(raw: string): string | null {
  const text = raw.trim();
  if (text.length === 0 || text.length > 2048) return null;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return null;
  }
  const host = url.hostname.replace(/\.$/, "").toLowerCase();
  if (!HOST_NAME.test(host)) return null;
  // Docker Hub's API host and index name are the registry image references call docker.io.
  const named = host === "index.docker.io" || host === "registry-1.docker.io" ? "docker.io" : host;
  const withPort = url.port ? `${named}:${url.port}` : named;
  return withPort.length <= MAX_HOST ? withPort : null;
}

/** The login to store, or the problems of the input (paths under the body). */
export function parseRegistryLogin(input: RegistryLoginInput): { login: RegistryLogin } | { problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const registryHost = registryHostOf(input.registryHost);
  if (!registryHost)
    problems.push({
      path: "registry_host",
      message: `must be a host name with an optional port (1 to ${MAX_HOST} characters)`,
    });
  const username = input.username.trim();
  if (username.length < 1 || username.length > MAX_USERNAME)
    problems.push({ path: "username", message: `is required (1 to ${MAX_USERNAME} characters)` });
  if (input.password.length < 1 || input.password.length > MAX_PASSWORD)
    problems.push({ path: "password", message: `is required (1 to ${MAX_PASSWORD} characters)` });
  if (problems.length > 0) return { problems };
  return { login: { registryHost: registryHost!, username, password: input.password, allowed: input.allowed ?? true } };
}
