// The fields of host A's and host B's webhook payloads that select the repository and ref (docs/scm.md).
import { describe, expect, it } from "@jest/globals";
import { readWebhook } from "../src/routes/scm/webhook-payloads.ts";

const repoA = {
  full_name: "acme/app",
  clone_url: "https://git.example.test/acme/app.git",
  html_url: "https://git.example.test/acme/app",
  ssh_url: "git@git.example.test:acme/app.git",
};
const projectB = {
  path_with_namespace: "acme/app",
  git_http_url: "https://git.example.test/acme/app.git",
  git_ssh_url: "git@git.example.test:acme/app.git",
  web_url: "https://git.example.test/acme/app",
};

describe("host A (scm_a)", () => {
  it("reads a push: its ref and the repository's addresses", () => {
    expect(readWebhook("scm_a", "push", { ref: "refs/heads/main", after: "a".repeat(40), repository: repoA })).toEqual({
      kind: "scan",
      event: "push",
      ref: "refs/heads/main",
      repository: "acme/app",
      repositoryUrls: [repoA.clone_url, repoA.html_url, repoA.ssh_url],
    });
  });

  it("ignores a branch deletion, a ping, unknown events and pull-request actions that change no code", () => {
    const deleted = readWebhook("scm_a", "push", { ref: "refs/heads/x", after: "0".repeat(40), repository: repoA });
    expect(deleted).toMatchObject({ kind: "ignored", reason: "ref deleted" });
    expect(readWebhook("scm_a", "ping", { zen: "z" })).toEqual({ kind: "ignored", reason: "ping", repositoryUrls: [] });
    expect(readWebhook("scm_a", "issues", { repository: repoA })).toMatchObject({
      kind: "ignored",
      reason: "event issues",
    });
    const labeled = readWebhook("scm_a", "pull_request", {
      action: "labeled",
      number: 1,
      pull_request: {},
      repository: repoA,
    });
    expect(labeled).toMatchObject({ kind: "ignored", reason: "pull_request labeled" });
  });

  it("reads a pull request: its head ref, number and base (Gitea's `synchronized` too)", () => {
    for (const action of ["opened", "synchronize", "synchronized", "reopened"])
      expect(
        readWebhook("scm_a", "pull_request", {
          action,
          number: 12,
          pull_request: { number: 12, base: { ref: "main" } },
          repository: repoA,
        }),
      ).toMatchObject({
        kind: "scan",
        event: "pull_request",
        ref: "refs/pull/12/head",
        pullRequestNumber: 12,
        baseRef: "refs/heads/main",
      });
  });

  it("calls a payload without what its event needs invalid", () => {
    expect(readWebhook("scm_a", "push", { ref: "refs/heads/main" })).toMatchObject({ kind: "invalid" });
    expect(readWebhook("scm_a", "push", { ref: "main", repository: repoA })).toMatchObject({ kind: "invalid" });
    expect(readWebhook("scm_a", "push", { ref: "refs/heads/m", repository: { full_name: "a/b" } })).toMatchObject({
      kind: "invalid",
    });
    expect(readWebhook("scm_a", "pull_request", { action: "opened", repository: repoA })).toMatchObject({
      kind: "invalid",
    });
    expect(readWebhook("scm_a", "push", [1, 2])).toMatchObject({ kind: "invalid" });
  });
});

describe("host B (scm_b)", () => {
  it("reads a push and a tag push", () => {
    const push = { object_kind: "push", ref: "refs/heads/main", checkout_sha: "b".repeat(40), project: projectB };
    expect(readWebhook("scm_b", "", push)).toEqual({
      kind: "scan",
      event: "push",
      ref: "refs/heads/main",
      repository: "acme/app",
      repositoryUrls: [projectB.git_http_url, projectB.web_url, projectB.git_ssh_url],
    });
    expect(readWebhook("scm_b", "", { ...push, object_kind: "tag_push", ref: "refs/tags/v1" })).toMatchObject({
      kind: "scan",
      ref: "refs/tags/v1",
    });
    expect(readWebhook("scm_b", "", { ...push, checkout_sha: null })).toMatchObject({ kind: "ignored" });
  });

  it("reads a merge request's head, number and target; ignores a merge or a note", () => {
    const mr = {
      object_kind: "merge_request",
      project: projectB,
      object_attributes: { iid: 4, action: "update", target_branch: "develop" },
    };
    expect(readWebhook("scm_b", "", mr)).toMatchObject({
      kind: "scan",
      event: "pull_request",
      ref: "refs/merge-requests/4/head",
      pullRequestNumber: 4,
      baseRef: "refs/heads/develop",
    });
    expect(readWebhook("scm_b", "", { ...mr, object_attributes: { iid: 4, action: "merge" } })).toMatchObject({
      kind: "ignored",
    });
    expect(readWebhook("scm_b", "", { object_kind: "note", project: projectB })).toMatchObject({ kind: "ignored" });
  });
});
