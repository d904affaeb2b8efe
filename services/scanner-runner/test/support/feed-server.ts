// A real HTTP server serving the enrichment feeds from the shared data set (CISA's catalog, FIRST's scores gzipped
// as published, endoflife.date products), plus broken answers: truncated, corrupt, slow, missing.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { sharedDir } from "@sca/testkit";

export interface FeedServer {
  url: string;
  /** Paths asked for, in order. */
  requests: string[];
  /** Delay before each end-of-life product answers (ms). */
  eolDelayMs: number;
  close(): Promise<void>;
}

const data = (...p: string[]) => join(sharedDir(), "data", ...p);

/** The real catalog without its first three entries: a sync over the full vendored one delists three. */
/** The vendored catalog as CISA publishes it. */
export function kevCatalog(): Buffer {
  return readFileSync(data("kev", "known_exploited_vulnerabilities.json"));
}

export function kevCatalogWithoutFirstThree(): Buffer {
  const doc = JSON.parse(readFileSync(data("kev", "known_exploited_vulnerabilities.json"), "utf8")) as {
    count: number;
    vulnerabilities: unknown[];
  };
  doc.vulnerabilities = doc.vulnerabilities.slice(3);
  doc.count = doc.vulnerabilities.length;
  return Buffer.from(JSON.stringify(doc));
}

/** FIRST's file as published: the model/score-date comment line, the header, the rows; gzip. */
export function epssGzip(extraLines = ""): Buffer {
  const csv = readFileSync(data("epss", "epss_scores.csv"), "utf8");
  return gzipSync(`#model_version:v2025.03.14,score_date:2026-08-16T00:00:00+0000\n${csv}${extraLines}`);
}

export async function startFeedServer(): Promise<FeedServer> {
  const kev = kevCatalogWithoutFirstThree();
  const epss = epssGzip();
  const routes: Record<string, () => Buffer> = {
    "/kev.json": () => kev,
    "/kev-truncated.json": () => kev.subarray(0, kev.length / 2),
    "/kev-not-cisa.json": () => Buffer.from(JSON.stringify({ title: "something else", vulnerabilities: [] })),
    "/epss.csv.gz": () => epss,
    "/epss-truncated.csv.gz": () => epss.subarray(0, Math.floor(epss.length * 0.8)),
    // Every real row, then one that is not a score: the whole load must roll back.
    "/epss-bad-last-row.csv.gz": () => epssGzip("CVE-2099-0001,not-a-number,0.5\n"),
    "/epss-plain.csv": () => readFileSync(data("epss", "epss_scores.csv")),
  };
  const state = { requests: [] as string[], eolDelayMs: 0 };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    state.requests.push(path);
    if (path === "/slow") return; // never answers
    const eol = /^\/eol\/([a-z0-9.-]+)\.json$/.exec(path);
    if (eol) {
      setTimeout(() => {
        try {
          res.writeHead(200, { "content-type": "application/json" }).end(readFileSync(data("eol", `${eol[1]}.json`)));
        } catch {
          res.writeHead(404).end();
        }
      }, state.eolDelayMs);
      return;
    }
    const body = routes[path]?.();
    if (!body) return void res.writeHead(404).end("not found");
    res.writeHead(200, { "content-type": "application/octet-stream" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    get eolDelayMs() {
      return state.eolDelayMs;
    },
    set eolDelayMs(ms: number) {
      state.eolDelayMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
