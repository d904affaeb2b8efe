// The pull-request comment's pure rules (docs/scm.md, "Pull-request comments"): what is new over the base, the
// marker, the text, the base refs.
import { describe, expect, it } from "@jest/globals";
import {
  automaticCommentOf,
  baseRefs,
  COMMENT_ROWS,
  commentBody,
  commentMarker,
  newFindings,
  newLicenseProblems,
} from "../src/domain/pull-request-comments.ts";

const f = (vulnerabilityId: string, pkg: string, version = "1.0.0", severity = "high") => ({
  vulnerabilityId,
  severity,
  package: pkg,
  version,
});

describe("newFindings", () => {
  it("keeps what the base lacks by vulnerability and package, most severe first, once each", () => {
    const base = [f("CVE-1", "a"), f("CVE-2", "b")];
    const pr = [
      f("CVE-1", "a", "1.0.1"),
      f("CVE-3", "a", "1.0.0", "low"),
      f("CVE-2", "c", "2.0.0", "critical"),
      f("CVE-2", "c", "2.0.0", "critical"),
    ];
    expect(newFindings(pr, base)).toEqual([f("CVE-2", "c", "2.0.0", "critical"), f("CVE-3", "a", "1.0.0", "low")]);
    expect(newFindings(pr, [])).toHaveLength(3);
  });
});

describe("newLicenseProblems", () => {
  it("keeps the package and license pairs the base lacks", () => {
    const c = (pkg: string, license: string) => ({ package: pkg, version: "1", license, category: "forbidden" });
    expect(newLicenseProblems([c("a", "GPL-3.0-only"), c("b", "AGPL-3.0-only")], [c("a", "GPL-3.0-only")])).toEqual([
      c("b", "AGPL-3.0-only"),
    ]);
  });
});

describe("commentBody", () => {
  const input = {
    projectId: "p1",
    scanId: "s2",
    baseScanId: "s1",
    baseRef: "refs/heads/main",
    gate: { outcome: "fail", judgedScanId: "s2", reasons: ["1 open critical | finding"] },
    findings: [f("CVE-9", "x|y")],
    licenses: [],
  };

  it("starts with the project's marker and names the gate, the base and each new finding", () => {
    const body = commentBody(input);
    expect(body.startsWith(commentMarker("p1"))).toBe(true);
    expect(body).toContain("**Gate: failed** (judged on this scan).");
    expect(body).toContain("- 1 open critical   finding");
    expect(body).toContain("Compared with the latest scan of `refs/heads/main` (s1).");
    expect(body).toContain("| high | CVE-9 | x y | 1.0.0 |");
    expect(body).toContain("No new license problems.");
  });

  it("says when there is no base or another scan was judged, and counts rows past the cap", () => {
    const many = Array.from({ length: COMMENT_ROWS + 3 }, (_, i) => f(`CVE-${i}`, "p"));
    const body = commentBody({
      ...input,
      baseScanId: null,
      gate: { outcome: "pass", judgedScanId: "s9", reasons: [] },
      findings: many,
    });
    expect(body).toContain("**Gate: passed** (judged on the project's latest succeeded scan s9).");
    expect(body).toContain("No scan of `refs/heads/main` to compare with");
    expect(body).toContain("… and 3 more.");
    expect(body.split("\n").filter((l) => l.startsWith("| high |"))).toHaveLength(COMMENT_ROWS);
  });
});

describe("baseRefs", () => {
  it("are the full and the bare branch name", () => {
    expect(baseRefs("refs/heads/main")).toEqual(["refs/heads/main", "main"]);
    expect(baseRefs("main")).toEqual(["refs/heads/main", "main"]);
  });
});

describe("automaticCommentOf", () => {
  const news = {
    projectId: "0195D5A0-0000-7000-8000-000000000001",
    scanId: "0195D5A0-0000-7000-8000-000000000002",
    status: "succeeded",
    landedSuperseded: false,
    pullRequestNumber: 12n,
    pullRequestBaseRef: "refs/heads/main",
  };

  it("comments a pull-request webhook's scan that succeeded, on its pull request against its base", () => {
    expect(automaticCommentOf(news)).toEqual({
      projectId: "0195d5a0-0000-7000-8000-000000000001",
      scanId: "0195d5a0-0000-7000-8000-000000000002",
      pullRequestNumber: 12,
      baseRef: "refs/heads/main",
    });
  });

  it("comments nothing before success, after failure, for a scan landed superseded or of no pull request", () => {
    for (const status of ["queued", "running", "failed", "cancelled"])
      expect(automaticCommentOf({ ...news, status })).toBeNull();
    expect(automaticCommentOf({ ...news, landedSuperseded: true })).toBeNull();
    const { pullRequestNumber: _n, pullRequestBaseRef: _b, ...plain } = news;
    expect(automaticCommentOf(plain)).toBeNull();
    expect(automaticCommentOf({ ...news, pullRequestBaseRef: "" })).toBeNull();
    expect(automaticCommentOf({ ...news, pullRequestNumber: 0n })).toBeNull();
    expect(automaticCommentOf({ ...news, pullRequestNumber: 2n ** 60n })).toBeNull();
  });
});
