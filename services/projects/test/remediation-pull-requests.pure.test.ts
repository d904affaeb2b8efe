// The remediation pull request's pure rules (docs/scm.md, "Remediation pull requests"): the bumps, their fingerprint,
// the branch name, the PR text, the repository name check.
import { describe, expect, it } from "@jest/globals";
import { editManifest } from "../src/domain/npm-remediation.ts";
import { hostMayAnswerLater } from "../src/domain/source-host-failures.ts";
import {
  abandonedCreatingBefore,
  bumpFingerprint,
  creatingSettlement,
  bumpsOf,
  isRepositoryFullName,
  pullRequestBody,
  pullRequestTitle,
  remediationBranch,
} from "../src/domain/remediation-pull-requests.ts";

const recommendations = [
  { package: "lodash", current_version: "4.17.20", recommended_version: "4.17.21" },
  { package: "minimist", current_version: "1.2.5", recommended_version: "1.2.6" },
  { package: "absent", current_version: "1.0.0", recommended_version: "1.0.1" },
];

describe("bumps", () => {
  it("are the recommended packages whose range really changed, by name", () => {
    const manifest =
      '{"dependencies": {"minimist": "^1.2.5", "lodash": "*"}, "devDependencies": {"lodash": "~4.17.20"}}';
    const edit = editManifest(manifest, recommendations);
    if (!edit.ok) throw new Error(edit.detail);
    expect(bumpsOf(recommendations, edit.changes)).toEqual([
      { package: "lodash", from: "4.17.20", to: "4.17.21" },
      { package: "minimist", from: "1.2.5", to: "1.2.6" },
    ]);
    const unchanged = editManifest('{"dependencies": {"lodash": "latest"}}', recommendations);
    if (!unchanged.ok) throw new Error(unchanged.detail);
    expect(bumpsOf(recommendations, unchanged.changes)).toEqual([]);
  });

  it("fingerprint the package-to-target set, whatever the order or the from version", () => {
    const a = [
      { package: "a", from: "1.0.0", to: "1.0.1" },
      { package: "b", from: "2.0.0", to: "2.1.0" },
    ];
    const reordered = [
      { package: "b", from: "2.0.5", to: "2.1.0" },
      { package: "a", from: "1.0.0", to: "1.0.1" },
    ];
    expect(bumpFingerprint(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(bumpFingerprint(reordered)).toBe(bumpFingerprint(a));
    expect(bumpFingerprint([{ package: "a", from: "1.0.0", to: "1.0.2" }, a[1]!])).not.toBe(bumpFingerprint(a));
    expect(remediationBranch("sca-portal", bumpFingerprint(a))).toBe(
      `sca-portal/remediation-${bumpFingerprint(a).slice(0, 12)}`,
    );
  });

  it("are named in the title and the body, with the lockfile reminder", () => {
    const one = [{ package: "lodash", from: "4.17.20", to: "4.17.21" }];
    expect(pullRequestTitle(one)).toBe("Bump lodash from 4.17.20 to 4.17.21");
    expect(pullRequestTitle([...one, { package: "x", from: "1.0.0", to: "1.0.1" }])).toBe(
      "Bump 2 vulnerable npm dependencies",
    );
    const body = pullRequestBody(one);
    expect(body).toContain("| lodash | 4.17.20 | 4.17.21 |");
    expect(body).toContain("regenerate the lockfile");
  });
});

describe("isRepositoryFullName", () => {
  it("takes owner/name and nothing else", () => {
    expect(isRepositoryFullName("acme/app.js")).toBe(true);
    expect(isRepositoryFullName("acme-1/my_app")).toBe(true);
    for (const bad of ["acme", "acme/app/x", "../etc", "acme/..", "acme/a b", "/app", "acme/"])
      expect(isRepositoryFullName(bad)).toBe(false);
  });
});

describe("reconciling an abandoned creating record", () => {
  it("reconciles the creating records untouched for 15 minutes", () => {
    expect(abandonedCreatingBefore(new Date("2026-11-29T03:00:00Z"))).toEqual(new Date("2026-11-29T02:45:00Z"));
  });

  it("records the pull request opened before the crash as open", () => {
    expect(
      creatingSettlement({ kind: "open_pull_request", number: 4, url: "https://git.example.com/a/b/pulls/4" }),
    ).toEqual({ status: "open", prNumber: 4, prUrl: "https://git.example.com/a/b/pulls/4", prState: "open" });
  });

  it("fails a record whose pull request was not opened, or whose repository can no longer be reached", () => {
    expect(creatingSettlement({ kind: "no_pull_request" })).toEqual({ status: "failed", failureStatus: null });
    expect(creatingSettlement({ kind: "not_reachable" })).toEqual({ status: "failed", failureStatus: null });
    expect(creatingSettlement({ kind: "host_failed", status: 404, mayAnswerLater: false })).toEqual({
      status: "failed",
      failureStatus: 404,
    });
  });

  it("leaves it creating while the host may answer later", () => {
    expect(creatingSettlement({ kind: "host_failed", status: null, mayAnswerLater: true })).toBeNull();
    expect(creatingSettlement({ kind: "host_failed", status: 503, mayAnswerLater: true })).toBeNull();
  });
});

describe("hostMayAnswerLater", () => {
  it("waits for a host that did not answer, failed or asked to slow down; takes any other refusal as final", () => {
    expect([null, 429, 500, 502, 503].map(hostMayAnswerLater)).toEqual([true, true, true, true, true]);
    expect([400, 401, 403, 404, 410, 422].map(hostMayAnswerLater)).toEqual([false, false, false, false, false, false]);
  });
});
