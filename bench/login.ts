// Password sign-in latency, one login at a time: POST /api/v1/auth/login through the gateway, and identity's
// AccountService.Login called directly. The scrypt hash (N=2^15, about 70 ms of CPU) dominates both.
// The gateway's login limit is fixed by the spec at 5 per minute per client address and no configuration raises
// it: each gateway sample therefore leaves from a loopback address of its own (all of 127.0.0.0/8 is local on
// Linux), so every request stays within the limit. Against a gateway that is not on loopback only the direct
// RPC row is measured.
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { AccountService } from "@sca/proto/sca/identity/v1/accounts_pb.ts";
import { createServiceClient } from "@sca/rpc";
import { rpcUrlFor } from "@sca/runtime/services";
import { percentile, printTable } from "./table.ts";

const BASE = process.env.BENCH_BASE_URL ?? "http://127.0.0.1:8080";
const SAMPLES = Number(process.env.BENCH_LOGINS ?? 100);
const WARM_UP = 5;

function post(path: string, body: unknown, localAddress: string): Promise<number> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${BASE}${path}`,
      {
        method: "POST",
        localAddress,
        headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

let lastAddress = 0;
/** 127.77.x.y: a client address no other sample of this run used. */
function freshAddress(): string {
  const n = ++lastAddress;
  return `127.77.${n >> 8}.${n & 255}`;
}

async function timed(times: number, once: () => Promise<void>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = process.hrtime.bigint();
    await once();
    ms.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return ms;
}

function row(what: string, ms: number[]): Record<string, string | number> {
  return {
    what,
    samples: ms.length,
    "p50 ms": percentile(ms, 50),
    "p99 ms": percentile(ms, 99),
    "mean ms": ms.reduce((a, b) => a + b, 0) / ms.length,
  };
}

const email = `bench-login-${Date.now()}@example.com`;
const password = randomBytes(18).toString("base64url");
const registered = await post("/api/v1/auth/register", { email, password }, freshAddress());
if (registered !== 201) throw new Error(`register answered ${registered}`);

const rows: Record<string, string | number>[] = [];
if (["127.0.0.1", "localhost"].includes(new URL(BASE).hostname)) {
  const login = async () => {
    const status = await post("/api/v1/auth/login", { email, password }, freshAddress());
    if (status !== 200) throw new Error(`login answered ${status}`);
  };
  await timed(WARM_UP, login);
  rows.push(row("POST /api/v1/auth/login (gateway -> identity)", await timed(SAMPLES, login)));
}

const accounts = createServiceClient(AccountService, rpcUrlFor("identity"));
const direct = async () => {
  const { outcome } = await accounts.login({ email, password, client: { ip: "127.0.0.1", userAgent: "bench" } });
  if (outcome.case !== "session") throw new Error("expected a session");
};
await timed(WARM_UP, direct);
rows.push(row("AccountService.Login (identity RPC, direct)", await timed(SAMPLES, direct)));

printTable("Password sign-in, one at a time (scrypt N=2^15 per login)", rows);
