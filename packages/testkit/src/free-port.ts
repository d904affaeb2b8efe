// A loopback port nothing listens on, for a service that must know another's address before that one starts (two
// services asking each other, a broker's listeners) and for a closed port (connections refused). Not the kernel's
// pick for port 0: that comes from the ephemeral range, where every outgoing connection of the run (hundreds a second
// across the workers) also takes its source port, so a port released here was seen taken again before its server
// bound it (a test broker and a portal's service failed with EADDRINUSE). Below that range only listeners compete.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

const LOWEST = 20_000;

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

export async function freePort(): Promise<number> {
  for (;;) {
    const port = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST + 1));
    if (await bindable(port)) return port;
  }
}
