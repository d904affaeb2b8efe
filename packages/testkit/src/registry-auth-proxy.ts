// A registry that requires a login, for tests of private pulls: a real HTTP reverse proxy in front of the test
// registry (go-containerregistry's cmd/registry has no authentication) that speaks the distribution spec's
// challenge. `basic`: every /v2/ request needs the login as Basic auth, else 401 with `WWW-Authenticate: Basic`.
// `bearer`: every /v2/ request needs a token, else 401 with a `Bearer realm=...,service=...,scope=...` challenge;
// the realm (`/token` on the proxy) hands out a token for the login sent as Basic auth (401 without it). The proxy
// records what authorization each request carried, so a test can check where a password went.
import { randomBytes } from "node:crypto";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RegistryAuthProxy {
  /** localhost:<port>: what an image reference names. */
  host: string;
  port: number;
  /** Every request received: its path and the Authorization header it carried. */
  seen: { path: string; authorization: string | undefined }[];
  stop(): Promise<void>;
}

export interface RegistryAuthOptions {
  scheme: "basic" | "bearer";
  username: string;
  password: string;
  /** bearer: name the realm by the proxy's address (127.0.0.1:<port>) instead of localhost:<port>. */
  realmByAddress?: boolean;
}

export async function startRegistryAuthProxy(
  upstreamPort: number,
  options: RegistryAuthOptions,
): Promise<RegistryAuthProxy> {
  const basic = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString("base64")}`;
  const tokens = new Set<string>();
  const seen: RegistryAuthProxy["seen"] = [];
  let realmHost = "";

  const challenge = (req: IncomingMessage, res: ServerResponse) => {
    const repository = /^\/v2\/(.+)\/(?:manifests|blobs|tags)\//.exec(req.url ?? "")?.[1];
    const value =
      options.scheme === "basic"
        ? 'Basic realm="test-registry"'
        : `Bearer realm="http://${realmHost}/token",service="test-registry"` +
          (repository ? `,scope="repository:${repository}:pull"` : "");
    res.writeHead(401, { "www-authenticate": value, "content-type": "application/json" });
    res.end(JSON.stringify({ errors: [{ code: "UNAUTHORIZED", message: "authentication required" }] }));
  };

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const headers = { ...req.headers, host: `127.0.0.1:${upstreamPort}` };
    delete headers.authorization;
    const upstream = request(
      { host: "127.0.0.1", port: upstreamPort, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  };

  const server = createServer((req, res) => {
    const authorization = req.headers.authorization;
    seen.push({ path: req.url ?? "", authorization });
    const path = new URL(req.url ?? "/", "http://proxy").pathname;
    if (options.scheme === "bearer" && path === "/token") {
      if (authorization !== basic) {
        res.writeHead(401, { "content-type": "application/json" });
        return res.end(JSON.stringify({ details: "the login was not accepted" }));
      }
      const token = randomBytes(24).toString("hex");
      tokens.add(token);
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ token, access_token: token, expires_in: 300 }));
    }
    const accepted =
      options.scheme === "basic"
        ? authorization === basic
        : authorization?.startsWith("Bearer ") === true && tokens.has(authorization.slice(7));
    if (!accepted) return challenge(req, res);
    forward(req, res);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  const host = `localhost:${port}`;
  realmHost = options.realmByAddress ? `127.0.0.1:${port}` : host;
  return {
    host,
    port,
    seen,
    stop: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
