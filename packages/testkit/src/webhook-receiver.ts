// A real HTTP server standing in for a webhook receiver (Slack, Teams, a ticket tracker, ...): it records every
// request and answers as the test says, one answer per request in order (a status, or `hang`: never answer, for a
// caller's timeout), then `defaultStatus`.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The status answered, or "hang". */
  answered: number | "hang";
}

export interface TestWebhookReceiver {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** Every request, in arrival order. */
  received: ReceivedRequest[];
  /** The answers to the next requests, in order. */
  answerNext(...answers: (number | "hang")[]): void;
  defaultStatus: number;
  /** The requests answered 2xx. */
  accepted(): ReceivedRequest[];
  /** Resolves with the first request `match` accepts (waiting for it), or rejects after `timeoutMs`. */
  waitFor(match: (r: ReceivedRequest) => boolean, timeoutMs?: number): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

export async function startTestWebhookReceiver(defaultStatus = 200): Promise<TestWebhookReceiver> {
  const queue: (number | "hang")[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (d: Buffer) => chunks.push(d));
    req.on("end", () => {
      const answer = queue.shift() ?? receiver.defaultStatus;
      receiver.received.push({
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        answered: answer,
      });
      if (answer === "hang") return;
      res.writeHead(answer, { "content-type": "text/plain" }).end(answer < 300 ? "ok" : "no_service");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const receiver: TestWebhookReceiver = {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: [],
    defaultStatus,
    answerNext: (...answers) => queue.push(...answers),
    accepted: () => receiver.received.filter((r) => r.answered !== "hang" && r.answered < 300),
    async waitFor(match, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = receiver.received.find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error("timed out waiting for a webhook request");
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return receiver;
}
