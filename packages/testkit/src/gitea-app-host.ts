// Host A's app authentication in front of the run's Gitea (docs/scm.md, "App credentials"). Gitea has pull requests,
// branches and contents but no GitHub-style apps, so this small server speaks the host's documented app-token
// exchange itself: POST /app/installations/{id}/access_tokens with a Bearer JWT, verified (RS256, iss = the app id)
// against the public half of the key pair it made, answered with an installation token (here the run's Gitea token,
// an hour long). It also serves the one write where GitHub's and Gitea's REST shapes differ, GitHub's
// POST /repos/{owner}/{repo}/git/refs (gitHubRefs below), doing the work with Gitea's branch creation; with
// `servesGitRefs` off that path goes to Gitea like the rest, as on a plain Gitea. Every other request is passed to
// Gitea's REST API unchanged but for the token, which must be one it issued. A fault can be set to answer one method
// and path suffix with a status, as a failing host would.
import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import { jwtVerify } from "jose";
import type { SharedGitea } from "./gitea.ts";

export interface GiteaAppHost {
  /** What SCM_API_URL names. */
  apiUrl: string;
  appId: string;
  /** PKCS#1 PEM, as hosts hand an app's key out. */
  privateKeyPem: string;
  /** Installation tokens issued so far (the portal caches them). */
  tokensIssued(): number;
  /** While set, a request of that method whose path ends so is answered `status` (and not passed on). */
  fault: { method: string; pathEnds: string; status: number } | null;
  /** Whether POST /repos/{o}/{r}/git/refs is answered as GitHub does (default) or passed to Gitea, which has none. */
  servesGitRefs: boolean;
  /** The repository calls answered so far, in order: method, path (no query) and the status answered. */
  served: { method: string; path: string; status: number }[];
  close(): Promise<void>;
}

interface Answer {
  status: number;
  body: unknown;
}

const problem = (status: number, message: string): Answer => ({ status, body: { message } });

/**
 * GitHub's "Create a reference" (REST git database API): body {ref, sha}; 201 with {ref, node_id, url, object: {type,
 * sha, url}}; 422 "Reference already exists" when it does, "Object does not exist" for an unknown sha, and for a ref
 * not of the form refs/x/y. Only branches (refs/heads/) are made here, the one kind the portal writes; Gitea makes
 * them from the commit (POST /branches with old_ref_name = the sha, which it resolves as a commit).
 */
async function gitHubRefs(gitea: SharedGitea, apiUrl: string, repo: string, raw: Buffer): Promise<Answer> {
  let input: { ref?: unknown; sha?: unknown };
  try {
    input = JSON.parse(raw.toString("utf8")) as typeof input;
  } catch {
    return problem(400, "Problems parsing JSON");
  }
  const { ref, sha } = input;
  if (typeof ref !== "string" || typeof sha !== "string") return problem(422, "Invalid request.");
  if (!/^refs\/[^/]+\/.+/.test(ref))
    return problem(422, "Reference name must start with 'refs/' and have at least two slashes.");
  if (!ref.startsWith("refs/heads/")) return problem(422, "Reference update failed");
  const headers = { authorization: `token ${gitea.token}`, "content-type": "application/json" };
  // Gitea answers 500 for an old_ref_name it cannot resolve: look the commit up first.
  const commit = await fetch(`${gitea.origin}/api/v1/repos/${repo}/git/commits/${encodeURIComponent(sha)}`, {
    headers,
  });
  if (commit.status === 404) {
    const seen = await fetch(`${gitea.origin}/api/v1/repos/${repo}`, { headers });
    return seen.status === 404 ? problem(404, "Not Found") : problem(422, "Object does not exist");
  }
  if (!commit.ok) return problem(commit.status, "Server Error");
  const name = ref.slice("refs/heads/".length);
  const made = await fetch(`${gitea.origin}/api/v1/repos/${repo}/branches`, {
    method: "POST",
    headers,
    body: JSON.stringify({ new_branch_name: name, old_ref_name: sha }),
  });
  if (made.status === 409) return problem(422, "Reference already exists");
  if (!made.ok) return problem(made.status, "Reference update failed");
  const branch = (await made.json()) as { commit: { id: string } };
  return {
    status: 201,
    body: {
      ref,
      node_id: Buffer.from(`${repo}:${ref}`).toString("base64"),
      url: `${apiUrl}/repos/${repo}/git/${ref}`,
      object: { type: "commit", sha: branch.commit.id, url: `${apiUrl}/repos/${repo}/git/commits/${branch.commit.id}` },
    },
  };
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startGiteaAppHost(gitea: SharedGitea, appId = "4242"): Promise<GiteaAppHost> {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const privateKeyPem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  const installationToken = `ghs_${gitea.token}`;
  let issued = 0;
  const host: GiteaAppHost = {
    apiUrl: "",
    appId,
    privateKeyPem,
    tokensIssued: () => issued,
    fault: null,
    servesGitRefs: true,
    served: [],
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server = createServer((req, res) => {
    void (async () => {
      const url = req.url ?? "/";
      const auth = req.headers.authorization ?? "";
      if (req.method === "POST" && /^\/app\/installations\/[^/]+\/access_tokens$/.test(url)) {
        try {
          await jwtVerify(auth.replace(/^Bearer /, ""), publicKey, { issuer: appId, algorithms: ["RS256"] });
        } catch {
          res
            .writeHead(401, { "content-type": "application/json" })
            .end('{"message":"A JSON web token could not be decoded"}');
          return;
        }
        issued++;
        const expires_at = new Date(Date.now() + 3_600_000).toISOString();
        res
          .writeHead(201, { "content-type": "application/json" })
          .end(JSON.stringify({ token: installationToken, expires_at }));
        return;
      }
      if (auth !== `token ${installationToken}`) {
        res.writeHead(401, { "content-type": "application/json" }).end('{"message":"Bad credentials"}');
        return;
      }
      const path = url.split("?")[0]!;
      const send = (status: number, contentType: string, body: Buffer | string) => {
        host.served.push({ method: req.method ?? "GET", path, status });
        res.writeHead(status, { "content-type": contentType }).end(body);
      };
      const fault = host.fault;
      if (fault && req.method === fault.method && path.endsWith(fault.pathEnds)) {
        send(fault.status, "application/json", '{"message":"injected fault"}');
        return;
      }
      const body = await bodyOf(req);
      const refs = /^\/repos\/([^/]+\/[^/]+)\/git\/refs$/.exec(path);
      if (req.method === "POST" && refs && host.servesGitRefs) {
        const answer = await gitHubRefs(gitea, host.apiUrl, refs[1]!, body);
        send(answer.status, "application/json; charset=utf-8", JSON.stringify(answer.body));
        return;
      }
      const answer = await fetch(`${gitea.origin}/api/v1${url}`, {
        method: req.method,
        headers: {
          authorization: `token ${gitea.token}`,
          ...(req.headers["content-type"] ? { "content-type": req.headers["content-type"] } : {}),
        },
        body: body.byteLength ? body : undefined,
      });
      send(
        answer.status,
        answer.headers.get("content-type") ?? "application/json",
        Buffer.from(await answer.arrayBuffer()),
      );
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  host.apiUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return host;
}
