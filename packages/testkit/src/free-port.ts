// A loopback port nothing listens on, for a service that must know another's address before that one starts (two
// services asking each other, a broker's listeners) and for a closed port (connections refused). Not the kernel's
// pick for port 0: that comes from the ephemeral range, where every outgoing connection of the run (hundreds a second
// across the workers) also takes its source port, so a port released here was seen taken again before its server
// bound it (a test broker and a portal's service failed with EADDRINUSE). Below that range only listeners compete.
//
// Two processes of one run (jest workers, the UI suite, the fuzzing gate) could still pick the same port between the
// check and the bind, which for a portal spans its migrations: a CLI test's sign-in then reached another portal's
// gateway on "its" port (401). So each pick is also claimed, machine-wide, by creating a file named after the port;
// a claim expires after a test run's length, as ports are not handed back.
import { mkdirSync, openSync, closeSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const LOWEST = 20_000;
const CLAIMS = join(tmpdir(), "sca-port-claims");
const CLAIM_LIFETIME_MS = 60 * 60_000;

function ephemeralStart(): number {
  try {
    const start = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > LOWEST + 1000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

const HIGHEST = ephemeralStart() - 1;

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** True when this process now holds the port's claim: a new file, or one left by a run long over. */
function claim(port: number): boolean {
  const file = join(CLAIMS, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      closeSync(openSync(file, "wx"));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    try {
      if (Date.now() - statSync(file).mtimeMs < CLAIM_LIFETIME_MS) return false;
      unlinkSync(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  return false;
}

export async function freePort(): Promise<number> {
  mkdirSync(CLAIMS, { recursive: true });
  for (;;) {
    const port = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST + 1));
    if (claim(port) && (await bindable(port))) return port;
  }
}
