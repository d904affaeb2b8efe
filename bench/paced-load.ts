// An open-loop load at an even rate: request i is due at start + i/rate whatever the answers before it did, and its
// latency runs from that due time (a request that waits for a free connection, or is sent late because the client
// was busy, counts the wait: no coordinated omission). Beside it the benches still run autocannon's `overallRate`,
// which measures something else: each connection sends back to back until its share of the second is spent, then
// idles until the next one-second tick (a burst of the whole second's requests at the start of each second, as many
// in flight as there are connections), and its coordinated-omission correction takes an expected interval of
// ceil(1 / per-connection rate) = 1 ms, adding a synthetic sample for every millisecond of each answer, which
// weights the slow answers' milliseconds rather than the answers (docs/benchmarks.md, `component-list`).
import { Agent, request } from "node:http";
import autocannon from "autocannon";

export interface PacedResult {
  requests: { total: number; average: number };
  latency: { p50: number; p90: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}

export interface PacedOptions {
  /** The URL of every request, or of request i (a walk through pages). */
  url: string | ((i: number) => string);
  headers: Record<string, string>;
  /** Requests a second, evenly spaced. */
  rate: number;
  seconds: number;
  /** Keep-alive connections at most; a request due while all are busy waits for one (and counts the wait). */
  connections: number;
  timeoutMs?: number;
  /** A POST instead of a GET: request i's own headers (added to `headers`) and body. */
  post?: (i: number) => { headers: Record<string, string>; body: Buffer };
}

export async function pacedLoad(opts: PacedOptions): Promise<PacedResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: opts.connections });
  const latencies: number[] = [];
  let errors = 0;
  let timeouts = 0;
  let non2xx = 0;
  const urlOf = typeof opts.url === "string" ? () => opts.url as string : opts.url;
  const one = (due: number, url: string, post?: { headers: Record<string, string>; body: Buffer }) =>
    new Promise<void>((resolve) => {
      const headers = post ? { ...opts.headers, ...post.headers } : opts.headers;
      const method = post ? "POST" : "GET";
      const req = request(url, { agent, method, headers, timeout: opts.timeoutMs ?? 10_000 }, (res) => {
        res.resume();
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) latencies.push(performance.now() - due);
          else non2xx++;
          resolve();
        });
      });
      let timedOut = false;
      req.on("timeout", () => {
        timedOut = true;
        timeouts++;
        req.destroy(new Error("timeout"));
      });
      req.on("error", () => {
        if (!timedOut) errors++;
        resolve();
      });
      req.end(post?.body);
    });
  const total = Math.round(opts.rate * opts.seconds);
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / opts.rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(one(due, urlOf(i), opts.post?.(i)));
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]!) : 0;
  return {
    requests: {
      total: latencies.length + non2xx,
      average: Math.round(((latencies.length + non2xx) / elapsed) * 100) / 100,
    },
    latency: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) },
    errors,
    timeouts,
    non2xx,
  };
}

/** The loads a bench runs: BENCH_LOAD=paced, autocannon, or both (the default). */
export function loadsToRun(): Load[] {
  const wanted = process.env.BENCH_LOAD ?? "both";
  return wanted === "both" ? ["paced", "autocannon"] : [wanted as Load];
}

export type Load = "paced" | "autocannon";

/** `url` for `seconds` at `rate` requests a second under `load`, as the benches' tables report it. */
export async function runLoad(
  load: Load,
  opts: { url: string; token: string; rate: number; connections: number; seconds: number },
): Promise<PacedResult> {
  const headers = { authorization: `Bearer ${opts.token}` };
  const { url, connections, rate, seconds } = opts;
  return load === "paced"
    ? pacedLoad({ url, connections, rate, seconds, headers })
    : autocannon({ url, connections, overallRate: rate, duration: seconds, headers });
}

/** A table row's load and latency columns. */
export function latencyColumns(load: Load, r: PacedResult): Record<string, string | number> {
  return {
    load: load === "paced" ? "paced, open loop" : "autocannon overallRate",
    "req/s": r.requests.average,
    "p50 ms": r.latency.p50,
    "p99 ms": r.latency.p99,
    "max ms": r.latency.max,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

export function p99Verdict(r: PacedResult, targetP99Ms: number): Record<string, string> {
  return {
    [`p99 ≤ ${targetP99Ms} ms`]: r.latency.p99 <= targetP99Ms && r.non2xx === 0 && r.errors === 0 ? "met" : "MISSED",
  };
}
