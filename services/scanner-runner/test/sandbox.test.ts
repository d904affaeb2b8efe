// The sandbox tools run in (docs/source-scans.md), with real processes: a script from a scanned tree sees none of
// the runner's secrets, a tool that hangs is killed at its timeout with everything it started, a flood of output is
// cut at the budget, and a cancel kills the process group at once.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it } from "@jest/globals";
import { runTool, type ToolRun } from "../src/sandbox/run-tool.ts";
import { openWorkspace, sandboxEnv, type Workspace } from "../src/sandbox/workspace.ts";
import { processRunning } from "./support/fake-cdxgen.ts";

let ws: Workspace | undefined;
afterEach(async () => {
  await ws?.remove();
  ws = undefined;
});

const limits = { timeoutMs: 20_000, outputMaxBytes: 1024 * 1024, fileMaxBytes: 64 * 1024 * 1024 };

async function script(body: string): Promise<string> {
  ws = await openWorkspace("", 65534);
  const file = join(ws.tree, "build.sh");
  await writeFile(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

function run(file: string, over: Partial<ToolRun> = {}) {
  const lines: { stream: string; line: string }[] = [];
  const done = runTool({
    command: "/bin/sh",
    args: [file],
    cwd: ws!.tree,
    env: sandboxEnv(ws!),
    limits,
    runAs: ws!.runAs,
    signal: new AbortController().signal,
    onLine: (stream, line) => lines.push({ stream, line }),
    ...over,
  });
  return { done, lines };
}

describe("the tool sandbox", () => {
  it("gives a build script none of the runner's secrets, in its environment or through /proc", async () => {
    // The runner's own environment holds them (the test runner sets them as a deployment does).
    const secrets = ["DATABASE_URL", "SECRET_KEY", "REDIS_URL", "KAFKA_BROKERS"].map((k) => process.env[k]!);
    expect(secrets.every((s) => s && s.length > 5)).toBe(true);
    const file = await script(
      [
        "env",
        `cat /proc/${process.pid}/environ 2>/dev/null | tr '\\0' '\\n' || true`,
        `cat /proc/$PPID/environ 2>/dev/null | tr '\\0' '\\n' || true`,
        "echo done",
      ].join("\n"),
    );
    const { done, lines } = run(file);
    expect(await done).toMatchObject({ exitCode: 0, timedOut: false });
    const said = lines.map((l) => l.line).join("\n");
    expect(said).toMatch(/^PATH=/m);
    expect(said).toMatch(/done$/);
    for (const secret of secrets) expect(said).not.toContain(secret);
    expect(said).not.toMatch(/DATABASE_URL|SECRET_KEY|KAFKA_|REDIS_URL/);
    // Only the allow-listed keys.
    const keys = lines
      .map((l) => /^([A-Z_][A-Z0-9_]*)=/.exec(l.line)?.[1])
      .filter((k): k is string => !!k && k !== "PWD" && k !== "SHLVL" && k !== "_");
    expect(new Set(keys)).toEqual(new Set(["PATH", "HOME", "TMPDIR", "LANG"]));
  });

  it("runs tools as the unprivileged sandbox user when the runner is root", async () => {
    const file = await script("id -u");
    const { done, lines } = run(file);
    await done;
    const expected = process.getuid?.() === 0 ? "65534" : String(process.getuid?.());
    expect(lines.map((l) => l.line)).toEqual([expected]);
  });

  it("kills a tool that hangs at its timeout, with what it left running in the background", async () => {
    const file = await script(`sleep 300 & echo $! > ${"$HOME"}/bg.pid\nsleep 300`);
    const started = Date.now();
    const { done } = run(file, { limits: { ...limits, timeoutMs: 1000 } });
    const result = await done;
    expect(result).toMatchObject({ timedOut: true, exitCode: null, killedBy: "SIGKILL" });
    expect(Date.now() - started).toBeLessThan(10_000);
    const bg = Number((await readFile(join(ws!.home, "bg.pid"), "utf8")).trim());
    await delay(200);
    expect(await processRunning(bg)).toBe(false);
  });

  it("cuts a flood of output at the budget and keeps reading to the end", async () => {
    const file = await script("yes 'a line of output' | head -n 2000000\necho 'to stderr' >&2");
    const { done, lines } = run(file, { limits: { ...limits, outputMaxBytes: 64 * 1024 } });
    const result = await done;
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, cut: ["stdout"] });
    const stdout = lines.filter((l) => l.stream === "stdout");
    expect(stdout.length).toBeGreaterThan(1000);
    expect(stdout.reduce((n, l) => n + l.line.length + 1, 0)).toBeLessThanOrEqual(64 * 1024);
    expect(lines.filter((l) => l.stream === "stderr").map((l) => l.line)).toEqual(["to stderr"]);
  });

  it("kills the process group at once when the job is cancelled", async () => {
    const file = await script("sleep 300");
    const cancel = new AbortController();
    const { done } = run(file, { signal: cancel.signal });
    await delay(300);
    const started = Date.now();
    cancel.abort(new Error("cancelled"));
    await expect(done).rejects.toThrow("cancelled");
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("caps the size of a file a tool writes", async () => {
    const file = await script(`head -c 2000000 /dev/zero > ${"$TMPDIR"}/big; echo $?`);
    const { done, lines } = run(file, { limits: { ...limits, fileMaxBytes: 1024 * 1024 } });
    await done;
    expect(lines.find((l) => l.stream === "stdout")?.line).not.toBe("0");
  });
});
