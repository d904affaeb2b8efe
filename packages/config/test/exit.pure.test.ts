import { execFileSync } from "node:child_process";
import { describe, expect, it } from "@jest/globals";

// A bad value stops the process with one line naming the key and the rule.
describe("loadConfigOrExit", () => {
  it("exits with one line naming the key and the rule", () => {
    const script = `import { keys, loadConfigOrExit } from "@sca/config"; loadConfigOrExit({ LOGIN_THROTTLE_WINDOWS: keys.LOGIN_THROTTLE_WINDOWS });`;
    let stderr = "";
    let status = 0;
    try {
      execFileSync(process.execPath, ["--input-type=module", "-e", script], {
        cwd: new URL("..", import.meta.url).pathname,
        env: { ...process.env, LOGIN_THROTTLE_WINDOWS: "-5" },
        stdio: "pipe",
      });
    } catch (err) {
      const e = err as { status: number; stderr: Buffer };
      status = e.status;
      stderr = e.stderr.toString();
    }
    expect(status).toBe(78);
    expect(stderr.trim().split("\n")).toEqual([
      "configuration error: LOGIN_THROTTLE_WINDOWS values below 1 are rejected",
    ]);
  });
});
