// The keys the notifier alone reads (src/config.ts), as the spec states them.
import { describe, expect, it } from "@jest/globals";
import { loadConfig, pickKeys } from "@sca/config";
import { notifierKeys } from "../src/config.ts";

const load = <K extends keyof typeof notifierKeys>(names: K[], env: Record<string, string>) =>
  loadConfig(pickKeys(notifierKeys, names), env);

describe("the notifier's configuration keys", () => {
  it("takes the webhook keys as http(s) URLs or empty (off), never printing one in an error", () => {
    const hooks = ["SLACK_WEBHOOK_URL", "TEAMS_WEBHOOK_URL", "TICKET_WEBHOOK_URL"] as const;
    const off = load([...hooks, "TICKET_WEBHOOK_EVENTS", "NOTIFICATION_HTTP_TIMEOUT_SECONDS"], {});
    expect(off).toMatchObject({
      SLACK_WEBHOOK_URL: "",
      TEAMS_WEBHOOK_URL: "",
      TICKET_WEBHOOK_URL: "",
      TICKET_WEBHOOK_EVENTS: [],
      NOTIFICATION_HTTP_TIMEOUT_SECONDS: 10,
    });
    const url = "https://hooks.example.com/services/T0/B0/xoxsecret";
    expect(load(["SLACK_WEBHOOK_URL"], { SLACK_WEBHOOK_URL: url }).SLACK_WEBHOOK_URL).toBe(url);
    expect(
      load(["TICKET_WEBHOOK_EVENTS"], { TICKET_WEBHOOK_EVENTS: "scan.failed, gate.failed" }).TICKET_WEBHOOK_EVENTS,
    ).toEqual(["scan.failed", "gate.failed"]);
    for (const key of hooks)
      try {
        load([key], { [key]: "ftp://files.example.com/xoxsecret" });
        throw new Error("expected a ConfigError");
      } catch (err) {
        expect((err as Error).message).toMatch(new RegExp(`${key} must be an http\\(s\\) URL`));
        expect((err as Error).message).not.toContain("xoxsecret");
      }
  });
});
