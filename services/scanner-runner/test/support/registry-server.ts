// A real HTTP server speaking the package registries' JSON (and Maven's XML) for the currency lookup: npm's
// packument, PyPI's JSON API, crates.io's API v1, the Go module proxy's @latest, NuGet's flat container, RubyGems'
// latest.json and a maven-metadata.xml, each shaped as the public registry answers (fields the lookup ignores
// included); a path it does not hold answers 404, a path listed in `hang` never answers.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RegistryServer {
  url: string;
  /** Paths asked for, in order (decoded as sent). */
  requests: string[];
  /** Paths that never answer (the lookup's timeout). */
  hang: Set<string>;
  close(): Promise<void>;
}

export type RegistryDocuments = Record<string, { type?: string; body: string }>;

export async function startRegistryServer(documents: RegistryDocuments): Promise<RegistryServer> {
  const requests: string[] = [];
  const hang = new Set<string>();
  const waiting = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    requests.push(path);
    if (hang.has(path)) {
      waiting.add(res);
      return;
    }
    const doc = documents[path];
    if (!doc) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"Not found"}');
      return;
    }
    res.writeHead(200, { "content-type": doc.type ?? "application/json" }).end(doc.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    hang,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of waiting) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
