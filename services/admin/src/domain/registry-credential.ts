// An organization's container-registry login (the spec's Registry login): what a valid one is. The registry host is
// kept as an image reference names it (lower-case host and a non-default port, no scheme, path or credentials), so a
// URL pasted from a browser and the host typed by hand name the same login; the password is write-only and only
// ever stored sealed.
import { hostUrlOf, requireLength, MAX_HOST, MAX_SECRET, MAX_USERNAME, type FieldProblem } from "./login-fields.ts";

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

/** The registry of `raw` (a host[:port], or a URL) as host[:port], or null when it names none. */
export function registryHostOf(raw: string): string | null {
  const found = hostUrlOf(raw);
  if (!found) return null;
  const { url, host } = found;
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
  requireLength(problems, "username", username, MAX_USERNAME, `is required (1 to ${MAX_USERNAME} characters)`);
  requireLength(problems, "password", input.password, MAX_SECRET, `is required (1 to ${MAX_SECRET} characters)`);
  if (problems.length > 0) return { problems };
  return { login: { registryHost: registryHost!, username, password: input.password, allowed: input.allowed ?? true } };
}
