// A real HTTP server speaking the package registries' JSON (and Maven's XML) for the currency lookup: npm's
// packument, PyPI's JSON API, crates.io's API v1, the Go module proxy's @latest, NuGet's flat container, RubyGems'
// latest.json and a maven-metadata.xml, each shaped as the public registry answers (fields the lookup ignores
// included); a path it does not hold answers 404, a path listed in `hang` (every path while `hangEverything`) answers
// only when released.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RegistryServer {
  url: string;
  /** Paths asked for, in order (decoded as sent). */
  requests: string[];
  /** Paths that never answer (the lookup's timeout). */
  hang: Set<string>;
  /** Every path hangs (a registry behind a proxy that swallows requests). */
  hangEverything: boolean;
  /** Requests of `path` (of any path without one) still held. */
  held(path?: string): number;
  /** Answers the held requests of `path` and lets it answer from now on. */
  release(path: string): void;
  close(): Promise<void>;
}

export type RegistryDocuments = Record<string, { type?: string; body: string }>;

export async function startRegistryServer(documents: RegistryDocuments): Promise<RegistryServer> {
  const requests: string[] = [];
  const hang = new Set<string>();
  const waiting = new Map<ServerResponse, string>();
  const answer = (res: ServerResponse, path: string) => {
    const doc = documents[path];
    if (!doc) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"Not found"}');
      return;
    }
    res.writeHead(200, { "content-type": doc.type ?? "application/json" }).end(doc.body);
  };
  const state = {
    url: "",
    requests,
    hang,
    hangEverything: false,
    held: (path?: string) => [...waiting.values()].filter((p) => path === undefined || p === path).length,
    release(path: string) {
      hang.delete(path);
      for (const [res, p] of waiting)
        if (p === path) {
          waiting.delete(res);
          answer(res, p);
        }
    },
  };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    requests.push(path);
    if (state.hangEverything || hang.has(path)) {
      waiting.set(res, path);
      res.on("close", () => waiting.delete(res));
      return;
    }
    answer(res, path);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of waiting.keys()) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
