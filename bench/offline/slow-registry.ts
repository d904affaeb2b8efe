// The package registries as bench/rematch.ts's runner asks them for licenses and latest versions: a local HTTP
// server (no public registry is asked by a bench) answering every npm packument, PyPI release document and Maven
// POM with an Apache-2.0 license after `delayMs`, and 404 for anything else (crates.io, Go, ...: "states none"). With
// the lookup's 4 requests in flight and 30 ms per answer, 10,000 releases take longer than
// LICENSE_FETCH_STAGE_SECONDS' 60 s, as the public registries did (docs/benchmarks.md, `rematch`). With `delayMs`
// Infinity it accepts every request and never answers (a registry behind a proxy that swallows requests);
// closedRegistryEnv() points the registries at a port nobody listens on (an air-gapped machine).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { freePort } from "@sca/testkit";

export interface SlowRegistry {
  /** PACKAGE_REGISTRY_*_URL for the runner. */
  env: Record<string, string>;
  /** Requests answered so far. */
  requests(): number;
  close(): Promise<void>;
}

const POM = `<?xml version="1.0" encoding="UTF-8"?>
<project><modelVersion>4.0.0</modelVersion>
  <licenses><license><name>Apache-2.0</name></license></licenses>
</project>`;

function answerOf(path: string): { type: string; body: string } | null {
  if (path.startsWith("/npm/"))
    return {
      type: "application/json",
      body: JSON.stringify({ name: decodeURIComponent(path.slice(5)), license: "Apache-2.0" }),
    };
  if (/^\/pypi\/pypi\/[^/]+\/[^/]+\/json$/.test(path))
    return { type: "application/json", body: JSON.stringify({ info: { license_expression: "Apache-2.0" } }) };
  if (path.startsWith("/maven2/") && path.endsWith(".pom")) return { type: "text/xml", body: POM };
  return null;
}

export async function startSlowRegistry(delayMs: number): Promise<SlowRegistry> {
  let answered = 0;
  const server: Server = createServer((req, res) => {
    if (delayMs === Infinity) return;
    setTimeout(() => {
      answered++;
      const answer = answerOf(req.url ?? "/");
      if (!answer) res.writeHead(404, { "content-type": "application/json" }).end('{"error":"Not found"}');
      else res.writeHead(200, { "content-type": answer.type }).end(answer.body);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    env: registryEnv(url),
    requests: () => answered,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** PACKAGE_REGISTRY_*_URL at a loopback port that was free a moment ago (connections are refused). */
export async function closedRegistryEnv(): Promise<Record<string, string>> {
  return registryEnv(`http://127.0.0.1:${await freePort()}`);
}

function registryEnv(url: string): Record<string, string> {
  return {
    PACKAGE_REGISTRY_NPM_URL: `${url}/npm`,
    PACKAGE_REGISTRY_PYPI_URL: `${url}/pypi`,
    PACKAGE_REGISTRY_CRATES_URL: `${url}/crates`,
    PACKAGE_REGISTRY_GO_URL: `${url}/goproxy`,
    PACKAGE_REGISTRY_NUGET_URL: `${url}/nuget`,
    PACKAGE_REGISTRY_RUBYGEMS_URL: `${url}/rubygems`,
    PACKAGE_REGISTRY_MAVEN_URL: `${url}/maven2`,
  };
}
