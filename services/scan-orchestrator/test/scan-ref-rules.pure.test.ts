import { describe, expect, it } from "@jest/globals";
import { normalizeGitRef, normalizeImageRef, normalizeScanRef, REF_MAX_CHARS } from "../src/domain/refs.ts";
import {
  metadataProblem,
  normalizeReleaseLabel,
  RELEASE_FILTER_MAX_CHARS,
  RELEASE_LABEL_MAX_CHARS,
  releaseListFilterOf,
  releaseFromMetadata,
  releaseOnSuccess,
  SCAN_METADATA_MAX_BYTES,
} from "../src/domain/release.ts";

const normalized = (raw: string) => {
  const r = normalizeGitRef(raw);
  return r.ok ? r.normalized : `invalid: ${r.message}`;
};

const image = (raw: string) => {
  const r = normalizeImageRef(raw);
  return r.ok ? r.normalized : `invalid: ${r.message}`;
};

describe("git ref normalisation", () => {
  it("reads an empty or blank ref as none", () => {
    expect(normalizeGitRef("")).toEqual({ ok: true, ref: "", normalized: "" });
    expect(normalizeGitRef("   ")).toEqual({ ok: true, ref: "", normalized: "" });
  });

  it("takes a bare name for a branch, so main and refs/heads/main are one ref", () => {
    expect(normalized("main")).toBe("refs/heads/main");
    expect(normalized(" refs/heads/main ")).toBe("refs/heads/main");
    expect(normalized("feature/login")).toBe("refs/heads/feature/login");
  });

  it("keeps fully qualified refs, so a tag and a branch of one name stay apart", () => {
    expect(normalized("refs/tags/v1.2.0")).toBe("refs/tags/v1.2.0");
    expect(normalized("v1.2.0")).toBe("refs/heads/v1.2.0");
    expect(normalized("refs/pull/42/head")).toBe("refs/pull/42/head");
    expect(normalized("refs/merge-requests/7/head")).toBe("refs/merge-requests/7/head");
  });

  it("reads a full commit id as a commit, lower-cased; a short hex string is a branch name", () => {
    expect(normalized("0123456789ABCDEF0123456789abcdef01234567")).toBe("0123456789abcdef0123456789abcdef01234567");
    expect(normalized("a".repeat(64))).toBe("a".repeat(64));
    expect(normalized("deadbee")).toBe("refs/heads/deadbee");
  });

  it("keeps the ref as given beside its normalised form", () => {
    expect(normalizeGitRef(" main ")).toEqual({ ok: true, ref: "main", normalized: "refs/heads/main" });
  });

  it("refuses what git refuses", () => {
    for (const bad of [
      "a b",
      "a..b",
      "a~1",
      "a^",
      "a:b",
      "a?",
      "a*",
      "a[b",
      "a\\b",
      "@",
      "a@{1}",
      "/a",
      "a/",
      "a//b",
      "a.",
      ".a",
      "a/.b",
      "a.lock",
      "x/y.lock/z",
      "a\u0001b",
      "refs/heads",
      "refs/",
    ]) {
      expect(normalizeGitRef(bad).ok).toBe(false);
    }
    expect(normalizeGitRef("x".repeat(REF_MAX_CHARS)).ok).toBe(true);
    expect(normalizeGitRef("x".repeat(REF_MAX_CHARS + 1))).toMatchObject({
      ok: false,
      message: expect.stringContaining("255"),
    });
  });
});

describe("image reference normalisation", () => {
  it("fills Docker Hub's implicit registry, library namespace and latest tag", () => {
    expect(image("nginx")).toBe("docker.io/library/nginx:latest");
    expect(image("nginx:1.27")).toBe("docker.io/library/nginx:1.27");
    expect(image("bitnami/redis")).toBe("docker.io/bitnami/redis:latest");
    expect(image("index.docker.io/library/nginx:1.27")).toBe("docker.io/library/nginx:1.27");
    expect(image("docker.io/nginx")).toBe("docker.io/library/nginx:latest");
  });

  it("lower-cases the registry host and keeps ports, tags and digests", () => {
    expect(image("Registry.Example.com:5000/team/app:1.2-rc.1")).toBe("registry.example.com:5000/team/app:1.2-rc.1");
    expect(image("localhost/app")).toBe("localhost/app:latest");
    const digest = `sha256:${"a".repeat(64)}`;
    expect(image(`ghcr.io/org/app@${digest}`)).toBe(`ghcr.io/org/app@${digest}`);
    expect(image(`ghcr.io/org/app:1.0@${digest}`)).toBe(`ghcr.io/org/app:1.0@${digest}`);
  });

  it("refuses empty and malformed references", () => {
    expect(image("")).toMatch(/^invalid: is required for a container scan/);
    for (const bad of [
      "Nginx",
      "ghcr.io/Org/app",
      "app:",
      "app:-x",
      "app@sha256:xyz",
      "a b",
      "ghcr.io/org/app:1:2",
      "reg_istry.io/app/x",
    ]) {
      expect(image(bad)).toMatch(/^invalid/);
    }
  });

  it("picks the rule by scan kind", () => {
    expect(normalizeScanRef("container", "nginx")).toMatchObject({
      ok: true,
      normalized: "docker.io/library/nginx:latest",
    });
    expect(normalizeScanRef("source", "nginx")).toMatchObject({ ok: true, normalized: "refs/heads/nginx" });
    expect(normalizeScanRef("sbom", "")).toMatchObject({ ok: true, normalized: "" });
    expect(normalizeScanRef("container", "").ok).toBe(false);
  });
});

describe("release labels", () => {
  it("reads metadata.release trimmed; absent, null or blank is no release", () => {
    expect(releaseFromMetadata(undefined)).toEqual({ ok: true, release: null });
    expect(releaseFromMetadata({})).toEqual({ ok: true, release: null });
    expect(releaseFromMetadata({ release: null })).toEqual({ ok: true, release: null });
    expect(releaseFromMetadata({ release: "  \t" })).toEqual({ ok: true, release: null });
    expect(releaseFromMetadata({ release: "  2.4.0 " })).toEqual({ ok: true, release: "2.4.0" });
    expect(releaseFromMetadata({ release: "Release 2024 – Q3" })).toEqual({ ok: true, release: "Release 2024 – Q3" });
  });

  it("refuses a label that is not a string, too long, or has control characters", () => {
    expect(releaseFromMetadata({ release: 2.4 })).toMatchObject({
      ok: false,
      path: "body.metadata.release",
      message: expect.stringContaining("string"),
    });
    expect(releaseFromMetadata({ release: ["1"] })).toMatchObject({ ok: false });
    expect(releaseFromMetadata({ release: "é".repeat(RELEASE_LABEL_MAX_CHARS) })).toMatchObject({ ok: true });
    expect(releaseFromMetadata({ release: "x".repeat(RELEASE_LABEL_MAX_CHARS + 1) })).toMatchObject({
      ok: false,
      message: expect.stringContaining("100"),
    });
    expect(releaseFromMetadata({ release: "1.0\n2.0" })).toMatchObject({
      ok: false,
      message: expect.stringContaining("control"),
    });
  });

  it("compares labels the way they are stored", () => {
    expect(normalizeReleaseLabel(" v1 ")).toBe("v1");
    expect(normalizeReleaseLabel("")).toBeNull();
    expect(normalizeReleaseLabel(null)).toBeNull();
  });

  it("falls back on the SBOM's own version when metadata gave no label, and only on a usable one", () => {
    expect(releaseOnSuccess("2.0", "1.9")).toBe("2.0");
    expect(releaseOnSuccess(null, " 1.9 ")).toBe("1.9");
    expect(releaseOnSuccess(null, "")).toBeNull();
    expect(releaseOnSuccess(null, undefined)).toBeNull();
    expect(releaseOnSuccess(null, "x".repeat(RELEASE_LABEL_MAX_CHARS + 1))).toBeNull();
  });

  it("bounds the metadata object", () => {
    expect(metadataProblem(undefined)).toBeNull();
    expect(metadataProblem({ release: "1", pipeline: "ci" })).toBeNull();
    expect(metadataProblem({ blob: "x".repeat(SCAN_METADATA_MAX_BYTES) })).toMatchObject({ path: "body.metadata" });
  });
});

describe("the releases list's filter", () => {
  it("matches the label exactly once trimmed; blank is no filter", () => {
    expect(releaseListFilterOf(" 2.4.0 ", "")).toEqual({ ok: true, filter: { release: "2.4.0", normalizedRef: null } });
    expect(releaseListFilterOf("   ", "")).toEqual({ ok: true, filter: { release: null, normalizedRef: null } });
    expect(releaseListFilterOf(undefined, "")).toEqual({ ok: true, filter: { release: null, normalizedRef: null } });
    expect(releaseListFilterOf("x".repeat(RELEASE_FILTER_MAX_CHARS), "").ok).toBe(true);
    expect(releaseListFilterOf("x".repeat(RELEASE_FILTER_MAX_CHARS + 1), "")).toMatchObject({
      ok: false,
      violations: [{ path: "query.release" }],
    });
  });

  it("normalises the ref as scans' refs are: a bare name is a branch, fully qualified refs as given", () => {
    const ref = (raw: string) => {
      const r = releaseListFilterOf(undefined, raw);
      return r.ok ? r.filter.normalizedRef : r.violations.map((v) => v.path).join();
    };
    expect(ref("main")).toBe("refs/heads/main");
    expect(ref(" refs/heads/main ")).toBe("refs/heads/main");
    expect(ref("refs/tags/v1.2")).toBe("refs/tags/v1.2");
    expect(ref("v1.2")).toBe("refs/heads/v1.2");
    expect(ref("")).toBeNull();
    expect(ref("a..b")).toBe("query.ref");
    expect(ref("refs/x")).toBe("query.ref");
  });
});
