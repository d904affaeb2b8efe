// A loopback port nothing listens on: the kernel's pick, released at once. For a service that must know another's
// address before that one starts (two services asking each other), and for a closed port (connections refused).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
