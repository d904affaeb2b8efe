// Host A's app authentication in front of the run's Gitea (docs/scm.md, "App credentials"). Gitea has pull requests,
// branches and contents but no GitHub-style apps, so this small server speaks the host's documented app-token
// exchange itself: POST /app/installations/{id}/access_tokens with a Bearer JWT, verified (RS256, iss = the app id)
// against the public half of the key pair it made, answered with an installation token (here the run's Gitea token,
// an hour long). Every other request is passed to Gitea's REST API unchanged but for the token, which must be one it
// issued. A fault can be set to answer one method and path suffix with a status, as a failing host would.
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
  close(): Promise<void>;
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
      const fault = host.fault;
      if (fault && req.method === fault.method && path.endsWith(fault.pathEnds)) {
        res.writeHead(fault.status, { "content-type": "application/json" }).end('{"message":"injected fault"}');
        return;
      }
      const body = await bodyOf(req);
      const answer = await fetch(`${gitea.origin}/api/v1${url}`, {
        method: req.method,
        headers: {
          authorization: `token ${gitea.token}`,
          ...(req.headers["content-type"] ? { "content-type": req.headers["content-type"] } : {}),
        },
        body: body.byteLength ? body : undefined,
      });
      res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
      res.end(Buffer.from(await answer.arrayBuffer()));
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  host.apiUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return host;
}
