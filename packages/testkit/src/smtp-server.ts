// A real SMTP server for a test (the smtp-server package on an ephemeral loopback port): STARTTLS with a
// certificate of the test CA (the client trusts `caPem`), optional AUTH, and every message parsed with mailparser.
// `refuseNext(n)` answers the next n messages with a temporary failure (451), as a busy server does.
import { once } from "node:events";
import type { ParsedMail } from "mailparser";
import { makeTestCertificates } from "./test-ca.ts";

export interface ReceivedMail {
  /** The envelope's recipients (RCPT TO). */
  to: string[];
  from: string;
  parsed: ParsedMail;
  /** Whether the session was upgraded with STARTTLS. */
  secure: boolean;
}

export interface TestSmtpServer {
  host: string;
  port: number;
  /** The CA the server's certificate chains to. */
  caPem: string;
  received: ReceivedMail[];
  /** The next `n` messages are refused with 451 (temporary), each counted in `refused`. */
  refuseNext(n: number): void;
  refused: number;
  /** The first message (received or arriving within `timeoutMs`) matching `match`. */
  waitFor(match: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startTestSmtpServer(opts: { user?: string; password?: string } = {}): Promise<TestSmtpServer> {
  // Loaded by the tests that start one, not by every file importing the test kit (about 0.3 s).
  const [{ SMTPServer }, { simpleParser }] = await Promise.all([import("smtp-server"), import("mailparser")]);
  const certs = await makeTestCertificates();
  const received: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  let refuse = 0;
  const state = { refused: 0 };
  const server = new SMTPServer({
    key: certs.keyPem,
    cert: certs.certPem,
    authOptional: !opts.user,
    disabledCommands: opts.user ? [] : ["AUTH"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === opts.user && auth.password === opts.password) callback(null, { user: auth.username });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (refuse > 0) {
          refuse -= 1;
          state.refused += 1;
          const err = Object.assign(new Error("Try again later"), { responseCode: 451 });
          callback(err);
          return;
        }
        void simpleParser(Buffer.concat(chunks)).then((parsed) => {
          received.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            parsed,
            secure: session.secure,
          });
          for (const wake of waiters) wake();
          callback();
        }, callback);
      });
    },
  });
  server.listen(0, "127.0.0.1");
  await once(server.server, "listening");
  const { port } = server.server.address() as { port: number };
  return {
    host: "127.0.0.1",
    port,
    caPem: certs.caPem,
    received,
    refuseNext: (n) => (refuse = n),
    get refused() {
      return state.refused;
    },
    async waitFor(match, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.find(match);
        if (found) return found;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no matching e-mail within ${timeoutMs} ms (${received.length} received)`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, left);
          waiters.add(wake);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
