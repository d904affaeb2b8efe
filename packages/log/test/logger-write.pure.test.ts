import { spawnSync } from "node:child_process";
import { describe, expect, it } from "@jest/globals";

// A line is on stdout once the call that logged it returns: a process killed right after (OOM-killed, SIGKILLed by a
// kubelet) loses none of what it logged. Lines handed to the thread pool were lost that way.
describe("createLogger's stdout", () => {
  it("has every line written before the process is killed", () => {
    const script =
      `import { createLogger } from "@sca/log"; const log = createLogger("test");` +
      `for (let i = 0; i < 1000; i++) log.info({ i }, "line"); process.kill(process.pid, "SIGKILL");`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: new URL("..", import.meta.url).pathname,
      encoding: "utf8",
    });
    expect(run.signal).toBe("SIGKILL");
    const lines = run.stdout.trim().split("\n");
    expect(lines).toHaveLength(1000);
    expect(JSON.parse(lines[999]!)).toMatchObject({ i: 999, msg: "line", service: "test" });
  });
});
