import { describe, expect, it } from "@jest/globals";
import { webhookPullRequestOf } from "../src/domain/webhook-pull-request.ts";

describe("the pull request a scan's state news names", () => {
  const metadata = { pull_request_number: 7, base_ref: "refs/heads/main", webhook_event: "pull_request" };

  it("names a pull-request webhook's scan's number and base ref", () => {
    expect(webhookPullRequestOf("webhook", metadata)).toEqual({ number: 7, baseRef: "refs/heads/main" });
  });

  it("names none for a push webhook's scan or a scan started otherwise with the same metadata", () => {
    expect(webhookPullRequestOf("webhook", { webhook_event: "push" })).toBeNull();
    expect(webhookPullRequestOf("manual", metadata)).toBeNull();
    expect(webhookPullRequestOf("schedule", metadata)).toBeNull();
  });

  it("names none when the metadata is not a usable number and base ref", () => {
    expect(webhookPullRequestOf("webhook", { ...metadata, pull_request_number: "7" })).toBeNull();
    expect(webhookPullRequestOf("webhook", { ...metadata, pull_request_number: 0 })).toBeNull();
    expect(webhookPullRequestOf("webhook", { ...metadata, pull_request_number: 1.5 })).toBeNull();
    expect(webhookPullRequestOf("webhook", { ...metadata, base_ref: "" })).toBeNull();
    expect(webhookPullRequestOf("webhook", { pull_request_number: 7 })).toBeNull();
  });
});
