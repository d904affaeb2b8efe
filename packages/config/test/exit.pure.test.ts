import { execFileSync } from "node:child_process";
import { describe, expect, it } from "@jest/globals";

// A bad value stops the process with one line naming the key and the rule.
describe("loadConfigOrExit", () => {
  it("exits with one line naming the key and the rule", () => {
    const script = `import { keys, loadConfigOrExit } from "@sca/config"; loadConfigOrExit({ KAFKA_TOPIC_PREFIX: keys.KAFKA_TOPIC_PREFIX });`;
    let stderr = "";
    let status = 0;
    try {
      execFileSync(process.execPath, ["--input-type=module", "-e", script], {
        cwd: new URL("..", import.meta.url).pathname,
        env: { ...process.env, KAFKA_TOPIC_PREFIX: "acme/prod" },
        stdio: "pipe",
      });
    } catch (err) {
      const e = err as { status: number; stderr: Buffer };
      status = e.status;
      stderr = e.stderr.toString();
    }
    expect(status).toBe(78);
    expect(stderr.trim().split("\n")).toEqual([
      "configuration error: KAFKA_TOPIC_PREFIX must be at most 100 of the characters A-Z a-z 0-9 . _ -",
    ]);
  });
});
