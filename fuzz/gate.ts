// The fuzzing gate of ./dev test: starts a whole portal of its own (every service and the gateway as processes,
// on free ports, a fresh database, its own Redis index, topic prefix and artefact directory, so a running ./dev up
// is never touched), then drives schemathesis against the served /openapi.json three times: the authentication
// routes as a throw-away account, every other route as a super_admin and as an ordinary member. Fixed seed, bounded
// examples: a failure reproduces with the command it prints. Exits non-zero on any failure schemathesis reports
// that is not in fuzz/baseline.json's accepted list.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDatabase, startPortalProcesses, type PortalProcesses } from "@sca/testkit";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SEED = process.env.FUZZ_SEED ?? "20261124";
const MAX_EXAMPLES = process.env.FUZZ_MAX_EXAMPLES ?? "12";
const CHECKS = [
  "not_a_server_error",
  "status_code_conformance",
  "content_type_conformance",
  "response_schema_conformance",
  "response_headers_conformance",
];

async function startPortal(databaseUrl: string): Promise<PortalProcesses> {
  return startPortalProcesses({
    databaseUrl,
    label: "fuzz",
    productionHeap: false,
    env: {
      REDIS_URL: process.env.FUZZ_REDIS_URL ?? "redis://127.0.0.1:56379/2",
      // The per-address limits the spec lets an operator set are raised for this run only (the login limit is fixed
      // by the spec: its 429 is a documented answer), and the failed-sign-in throttle is off, so the gate fuzzes the
      // authentication routes instead of skipping them.
      REGISTRATION_RATE_LIMIT: "100000/minute",
      PASSWORD_RESET_RATE_LIMIT: "100000/minute",
      PASSWORD_RESET_CONFIRM_RATE_LIMIT: "100000/minute",
      REFRESH_RATE_LIMIT: "100000/minute",
      OAUTH_AUTHORIZE_RATE_LIMIT: "100000/minute",
      LOGIN_THROTTLE_ENABLED: "false",
      // A fuzzed team chat webhook may only name this machine: the notifier never posts anywhere else.
      TEAM_CHAT_WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
    },
  });
}

async function call(origin: string, method: string, path: string, body?: unknown, bearer?: string) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const res = await fetch(`${origin}/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
}

/** A fresh account, signed in: its access token. */
async function account(origin: string, label: string): Promise<{ id: string; token: string }> {
  const email = `${label}-${randomBytes(4).toString("hex")}@fuzz.example.com`;
  const password = `Fz-${randomBytes(12).toString("base64url")}`;
  const user = await call(origin, "POST", "/v1/auth/register", { email, password, full_name: label });
  const session = await call(origin, "POST", "/v1/auth/login", { email, password });
  return { id: user.id as string, token: session.access_token as string };
}

interface RunFigures {
  name: string;
  operations: number;
  requests: number;
  seconds: number;
  failures: number;
  exitCode: number;
  /** CPU seconds each of the portal's processes spent during the run. */
  portalCpu: Record<string, number>;
}

async function schemathesis(
  portal: PortalProcesses,
  name: string,
  token: string,
  filter: string[],
): Promise<RunFigures> {
  const args = [
    "run",
    `${portal.origin}/api/openapi.json`,
    "--checks",
    CHECKS.join(","),
    "--phases",
    "coverage,fuzzing,stateful",
    "--seed",
    SEED,
    "--max-examples",
    MAX_EXAMPLES,
    // One worker: hypothesis's lambda descriptions are not thread-safe on CPython 3.11 ("AST constructor recursion
    // depth mismatch" under two workers).
    "--workers",
    "1",
    "--request-timeout",
    "10",
    "--no-color",
    "--generation-database",
    "none",
    "--suppress-health-check",
    "all",
    "--header",
    `Authorization: Bearer ${token}`,
    "--report",
    "ndjson",
    "--report-dir",
    join(portal.logDir, `report-${name}`),
    ...filter,
  ];
  const cpuBefore = portal.cpuSeconds();
  const baseline = join(ROOT, "fuzz", "baseline.json");
  if (existsSync(baseline)) args.push("--baseline", baseline);
  const started = Date.now();
  console.log(
    `\n== schemathesis as ${name}: st ${args.map((a) => (a.startsWith("Authorization") ? "'Authorization: Bearer <token>'" : a)).join(" ")}`,
  );
  // Run inside the temporary directory: schemathesis keeps state of its own (.schemathesis/) in its working directory.
  // Its long report goes to a file and is printed only when the run fails, so a green gate stays a table of figures.
  const output = join(portal.logDir, `schemathesis-${name}.log`);
  const fd = openSync(output, "w");
  const exitCode = await new Promise<number>((resolve) => {
    const child = spawn("st", args, {
      stdio: ["ignore", fd, fd],
      cwd: portal.logDir,
      env: { ...process.env, NO_COLOR: "1" },
    });
    child.on("error", (err) => {
      console.log(`schemathesis as ${name} did not start: ${err.message}`);
      resolve(1);
    });
    child.on("close", (code) => resolve(code ?? 1));
  });
  closeSync(fd);
  if (exitCode !== 0) process.stdout.write(readFileSync(output, "utf8"));
  const seconds = (Date.now() - started) / 1000;
  const cpuAfter = portal.cpuSeconds();
  const portalCpu = Object.fromEntries(
    Object.entries(cpuAfter).map(([n, s]) => [n, s - cpuBefore[n as keyof typeof cpuBefore]]),
  );
  const figures = reportFigures(join(portal.logDir, `report-${name}`));
  return { name, seconds, exitCode, portalCpu, ...figures };
}

/** Operations, requests and failures from schemathesis's ndjson event stream (one event a line). */
function reportFigures(dir: string): { operations: number; requests: number; failures: number } {
  const operations = new Set<string>();
  let requests = 0;
  let failures = 0;
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".ndjson")) : [];
  for (const file of files)
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
      if (!line.startsWith('{"ScenarioFinished"')) continue;
      const { recorder } = (JSON.parse(line) as { ScenarioFinished: { recorder: Recorder } }).ScenarioFinished;
      operations.add(recorder.label);
      requests += Object.keys(recorder.interactions ?? {}).length;
      for (const checks of Object.values(recorder.checks ?? {}))
        failures += checks.filter((c) => c.status === "FAILURE").length;
    }
  return { operations: operations.size, requests, failures };
}

interface Recorder {
  label: string;
  interactions?: Record<string, unknown>;
  checks?: Record<string, { status: string }[]>;
}

async function main(): Promise<void> {
  const database = await createDatabase("sca_fuzz");
  let portal: PortalProcesses | undefined;
  const figures: RunFigures[] = [];
  try {
    portal = await startPortal(database.url);
    const admin = await portal.superAdmin();
    const member = await account(portal.origin, "member");
    const team = await call(portal.origin, "POST", "/v1/admin/teams", { name: "Fuzz team", slug: "fuzz-team" }, admin);
    await call(
      portal.origin,
      "POST",
      `/v1/admin/teams/${team.id as string}/members`,
      { user_id: member.id, role: "developer" },
      admin,
    );
    const throwaway = await account(portal.origin, "throwaway");
    // The authentication routes as a throw-away account (a fuzzed logout or password change ends only its own
    // sessions) and everything else as the member, at once: neither run reaches the other's account, and the
    // authentication run spends most of its time waiting, not computing. Last, as the super_admin, whose stateful
    // phase finds the member through the admin user list and may deactivate them or reset their password (which
    // ends their sessions).
    figures.push(
      ...(await Promise.all([
        schemathesis(portal, "auth", throwaway.token, ["--include-tag", "auth"]),
        schemathesis(portal, "member", member.token, ["--exclude-tag", "auth"]),
      ])),
    );
    figures.push(await schemathesis(portal, "super_admin", admin, ["--exclude-tag", "auth"]));
  } finally {
    await portal?.stop();
    await database.drop();
    if (portal && figures.every((f) => f.exitCode === 0)) rmSync(portal.logDir, { recursive: true, force: true });
  }
  console.log("\nfuzzing gate (schemathesis, seed " + SEED + ", max examples " + MAX_EXAMPLES + ")");
  console.log("(auth and member run at once: each one's portal CPU counts the other's too)");
  console.log("| run | operations | requests | failures | seconds | portal CPU s (the busiest) | result |");
  console.log("|---|---:|---:|---:|---:|---|---|");
  for (const f of figures) {
    const cpu = Object.entries(f.portalCpu).sort((a, b) => b[1] - a[1]);
    const total = cpu.reduce((t, [, s]) => t + s, 0);
    const busiest = cpu
      .slice(0, 3)
      .map(([n, s]) => `${n} ${s.toFixed(0)}`)
      .join(", ");
    console.log(
      `| ${f.name} | ${f.operations} | ${f.requests} | ${f.failures} | ${f.seconds.toFixed(0)} | ${total.toFixed(0)} (${busiest}) | ${f.exitCode === 0 ? "pass" : "FAIL"} |`,
    );
  }
  if (figures.some((f) => f.exitCode !== 0)) {
    console.log(`portal logs kept in ${portal?.logDir}`);
    process.exit(1);
  }
}

await main();
