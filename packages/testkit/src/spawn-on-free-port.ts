// Starting a real server binary on a free loopback port: spawned, polled until it answers, and tried again on another
// port when it dies first (another process took the port between the check and the bind).
import type { ChildProcess } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
import { freePort } from "./free-port.ts";

/**
 * `spawnOn(port)` until `answers(port)` is true (polled for up to 10 s per try, 5 tries); the process and its port,
 * or null when it never answered (each failed try's process killed).
 */
export async function spawnOnFreePort(
  spawnOn: (port: number) => ChildProcess | Promise<ChildProcess>,
  answers: (port: number) => Promise<boolean>,
): Promise<{ child: ChildProcess; port: number } | null> {
  for (let tries = 0; tries < 5; tries++) {
    const port = await freePort();
    const started = await spawnOn(port);
    for (let i = 0; i < 100; i++) {
      if (started.exitCode !== null) break;
      if (await answers(port).catch(() => false)) return { child: started, port };
      await delay(100);
    }
    started.kill("SIGKILL");
  }
  return null;
}
