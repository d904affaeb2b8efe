import { Writable } from "node:stream";
import { describe, expect, it } from "@jest/globals";
import { pino } from "pino";
import { createLogger, scrubSecrets, withRequestId } from "@sca/log";

function capture(): { lines: () => Record<string, unknown>[]; stream: Writable } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join("")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe("logger", () => {
  it("writes the request id on every line of a request and redacts secret fields", () => {
    const out = capture();
    const logger = createLogger("test", "DEBUG", out.stream);
    withRequestId("req-123", () => {
      logger.info({ body: { email: "a@example.com", password: "hunter2hunter2" }, token: "abc" }, "login attempt");
    });
    logger.info("outside");
    const [inside, outside] = out.lines();
    expect(inside).toMatchObject({ request_id: "req-123", service: "test", level: "info", msg: "login attempt" });
    expect(JSON.stringify(inside)).not.toContain("hunter2");
    expect(inside!.token).toBe("[redacted]");
    expect(outside!.request_id).toBeUndefined();
  });

  it("redacts secret fields at any depth, in arrays and headers, without touching the logged object", () => {
    const out = capture();
    const logger = createLogger("test", "DEBUG", out.stream);
    const logged = {
      req: { headers: { authorization: "Bearer abc.def.ghi", "user-agent": "curl" } },
      hooks: [{ config: { target: { webhook_secret: "whsec-1" } } }],
      a: { b: { c: { d: { client_secret: "deep-secret" } } } },
      parsed: Object.assign(Object.create(null) as object, { refresh_token: "rt-secret" }),
      status: 200,
    };
    const before = JSON.stringify(logged);
    logger.info(logged, "request");
    logger.error({ err: new Error("boom") }, "failed");
    const [line, failed] = out.lines();
    expect(JSON.stringify(line)).not.toMatch(/abc\.def|whsec-1|deep-secret|rt-secret/);
    expect(line).toMatchObject({
      req: { headers: { authorization: "[redacted]", "user-agent": "curl" } },
      hooks: [{ config: { target: { webhook_secret: "[redacted]" } } }],
      status: 200,
    });
    expect(JSON.stringify(logged)).toBe(before);
    expect(failed!.err).toMatchObject({ type: "Error", message: "boom" });
  });

  it("masks credentials inside free text", () => {
    const text =
      "key tos_ab12cd_s3cr3tvalue and Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig in postgresql://sca:pw@db/x";
    const scrubbed = scrubSecrets(text);
    expect(scrubbed).not.toMatch(/s3cr3tvalue|eyJzdWIiOiIxIn0|:pw@/);
    expect(scrubbed).toContain("postgresql://[redacted]@db/x");
  });

  it("maps the spec's level names", () => {
    expect(createLogger("t", "WARNING").level).toBe("warn");
    expect(pino.levels.values[createLogger("t", "DEBUG").level]).toBe(20);
  });
});
