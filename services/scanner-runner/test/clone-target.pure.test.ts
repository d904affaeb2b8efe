// Which repository addresses a source scan clones from (src/domain/clone-target.ts) and which ref it fetches.
import { describe, expect, it } from "@jest/globals";
import { CloneAllowList, cloneTargetOf, isPublicAddress } from "../src/domain/clone-target.ts";
import { clonedBranch, refToFetch } from "../src/fetch/git-clone.ts";

describe("clone targets", () => {
  it("takes http, https and git URLs with their default ports", () => {
    expect(cloneTargetOf("https://github.com/OWASP/NodeGoat.git")).toMatchObject({
      scheme: "https",
      host: "github.com",
      port: 443,
    });
    expect(cloneTargetOf("http://git.example:8080/r.git")).toMatchObject({ scheme: "http", port: 8080 });
    expect(cloneTargetOf("git://[2001:db8::1]/r.git")).toMatchObject({
      scheme: "git",
      host: "2001:db8::1",
      port: 9418,
    });
  });

  it.each([
    ["file:///etc", /uses the file transport; only https:\/\/, http:\/\/ and git:\/\//],
    ["ext::sh -c touch% /tmp/pwned", /uses the ext transport/],
    ["fd::17", /uses the fd transport/],
    ["ssh://git@example.com/r.git", /uses ssh/],
    ["git@github.com:OWASP/NodeGoat.git", /uses ssh/],
    ["https://user:pw@example.com/r.git", /carries a user name or password/],
    ["", /has no git_url/],
    ["not a url", /not a URL/],
  ])("refuses %s", (url, message) => {
    expect(() => cloneTargetOf(url)).toThrow(message);
  });

  it.each([
    ["127.0.0.1", false],
    ["127.8.9.10", false],
    ["10.1.2.3", false],
    ["172.16.0.1", false],
    ["172.31.255.255", false],
    ["192.168.1.1", false],
    ["169.254.169.254", false],
    ["100.64.0.1", false],
    ["0.0.0.0", false],
    ["::1", false],
    ["::", false],
    ["fe80::1", false],
    ["fd00::1", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:10.0.0.1", false],
    ["140.82.121.4", true],
    ["172.32.0.1", true],
    ["2606:4700::6810:84e5", true],
    ["::ffff:140.82.121.4", true],
  ])("%s is public: %s", (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it("lets the operator's allow-list name hosts, addresses and ranges", () => {
    const allow = new CloneAllowList(["localhost", "git.corp.example", "10.20.0.0/16", "192.168.1.5"]);
    expect(allow.allows("localhost", "127.0.0.1")).toBe(true);
    expect(allow.allows("127.0.0.1", "127.0.0.1")).toBe(false);
    expect(allow.allows("GIT.corp.example", "10.9.9.9")).toBe(true);
    expect(allow.allows("other.corp", "10.20.3.4")).toBe(true);
    expect(allow.allows("other.corp", "10.21.3.4")).toBe(false);
    expect(allow.allows("x", "192.168.1.5")).toBe(true);
    expect(allow.allows("x", "192.168.1.6")).toBe(false);
    expect(allow.allows("anything", "140.82.121.4")).toBe(true);
    expect(new CloneAllowList([]).allows("localhost", "::1")).toBe(false);
  });

  it("fetches the scan's ref, else the default branch, else HEAD", () => {
    expect(refToFetch("refs/tags/v1", "main")).toBe("refs/tags/v1");
    expect(refToFetch("", "develop")).toBe("refs/heads/develop");
    expect(refToFetch("", "refs/heads/x")).toBe("refs/heads/x");
    expect(refToFetch("", undefined)).toBe("HEAD");
    expect(refToFetch("", " ")).toBe("HEAD");
  });

  it("clones a branch, a tag or the remote's HEAD in one git; fetches any other ref into an empty repository", () => {
    expect(clonedBranch("HEAD")).toBe("");
    expect(clonedBranch("refs/heads/main")).toBe("main");
    expect(clonedBranch("refs/heads/feature/x")).toBe("feature/x");
    expect(clonedBranch("refs/tags/v1.2.0")).toBe("v1.2.0");
    expect(clonedBranch("main")).toBeUndefined(); // a short name may be a tag or a branch: git fetch decides
    expect(clonedBranch("4b825dc642cb6eb9a060e54bf8d69288fbee4904")).toBeUndefined();
    expect(clonedBranch("refs/pull/7/head")).toBeUndefined();
    expect(clonedBranch("refs/heads/-x")).toBeUndefined();
  });
});
