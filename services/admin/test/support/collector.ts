// A real HTTP collector for the audit export: it records every batch it accepts and answers as the test says
// (accept, refuse with a status), and can stop listening and listen again on the same port (a collector that is down).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface CollectedBatch {
  first_seq: number;
  last_seq: number;
  prev_hash: string;
  last_hash: string;
  count: number;
  entries: Record<string, unknown>[];
}

export interface TestCollector {
  url: string;
  /** Batches answered 2xx, in arrival order. */
  accepted: CollectedBatch[];
  /** Every POST that arrived, accepted or not. */
  attempts: number;
  /** The status of the next answers (200 accepts). */
  answer: number;
  /** When set, batches past this many accepted ones are refused with 503 whatever `answer` says. */
  acceptAtMost: number | null;
  /** The positions of every accepted entry, in arrival order. */
  seqs(): number[];
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startCollector(answer = 200): Promise<TestCollector> {
  let server: Server | undefined;
  let port = 0;
  const c: TestCollector = {
    url: "",
    accepted: [],
    attempts: 0,
    answer,
    acceptAtMost: null,
    seqs: () => c.accepted.flatMap((b) => b.entries.map((e) => e.seq as number)),
    async down() {
      const s = server;
      server = undefined;
      if (s) await new Promise<void>((r) => s.close(() => r()));
    },
    async up() {
      const s = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (d: Buffer) => chunks.push(d));
        req.on("end", () => {
          c.attempts++;
          const full = c.acceptAtMost !== null && c.accepted.length >= c.acceptAtMost;
          const status = full ? 503 : c.answer;
          if (status >= 200 && status < 300)
            c.accepted.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as CollectedBatch);
          res.writeHead(status, { "content-type": "application/json", connection: "close" }).end("{}");
        });
      });
      await new Promise<void>((r) => s.listen(port, "127.0.0.1", () => r()));
      port = (s.address() as AddressInfo).port;
      c.url = `http://127.0.0.1:${port}/audit`;
      server = s;
    },
    close: () => c.down(),
  };
  await c.up();
  return c;
}

export async function waitUntil(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
