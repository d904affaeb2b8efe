import { readFileSync } from "node:fs";
import { createDatabase, startPortalProcesses } from "@sca/testkit";
const hz = 100;
const cpuOf = (pid: number) => { try { const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" "); return (Number(f[11]) + Number(f[12])) / hz; } catch { return 0; } };
const self0 = process.cpuUsage();
const t0 = Date.now();
const db = await createDatabase("costprobe");
const p = await startPortalProcesses({ databaseUrl: db.url, label: "cost" });
const atReady = Object.fromEntries(Object.entries(p.pids).map(([n, pid]) => [n, cpuOf(pid)]));
console.log("ready after", (Date.now() - t0) / 1000, "s; cpu per process", atReady, "sum", Object.values(atReady).reduce((a, b) => a + b, 0));
let prev = atReady;
for (let i = 0; i < 4; i++) {
await new Promise((r) => setTimeout(r, 30_000));
const now = Object.fromEntries(Object.entries(p.pids).map(([n, pid]) => [n, cpuOf(pid)]));
const d = Object.fromEntries(Object.entries(now).map(([n, v]) => [n, +(v - prev[n]!).toFixed(2)]));
console.log("idle 30 s window", i, d, "sum", Object.values(d).reduce((a, b) => a + b, 0).toFixed(2));
prev = now;
}
await p.stop(); await db.drop();
const s = process.cpuUsage(self0); console.log("self", (s.user + s.system) / 1e6);
