// Which project a webhook's repository names (docs/scm.md, "Which project"): repository keys of the addresses hosts
// send and projects register.
import { describe, expect, it } from "@jest/globals";
import { repositoryKey, repositoryName } from "../src/domain/webhooks.ts";

describe("repositoryKey", () => {
  it("gives clone, web and ssh addresses of one repository the same key", () => {
    const key = "git.example.test/acme/app";
    for (const address of [
      "https://git.example.test/acme/app.git",
      "https://git.example.test/acme/app",
      "https://git.example.test/acme/app/",
      "HTTPS://Git.Example.Test/Acme/App.git",
      "https://user:token@git.example.test/acme/app.git",
      "git@git.example.test:acme/app.git",
      "ssh://git@git.example.test/acme/app.git",
      "git://git.example.test/acme/app.git",
    ])
      expect(repositoryKey(address)).toBe(key);
  });

  it("keeps the port and nested groups, and tells other repositories apart", () => {
    expect(repositoryKey("http://127.0.0.1:3000/acme/app.git")).toBe("127.0.0.1:3000/acme/app");
    expect(repositoryKey("https://gitlab.example.test/group/sub/app.git")).toBe("gitlab.example.test/group/sub/app");
    expect(repositoryKey("https://git.example.test/acme/app2.git")).not.toBe(
      repositoryKey("https://git.example.test/acme/app.git"),
    );
  });

  it("names no repository for an address without a path", () => {
    expect(repositoryKey("https://git.example.test")).toBeNull();
    expect(repositoryKey("https://git.example.test/")).toBeNull();
    expect(repositoryKey("not a url")).toBeNull();
    expect(repositoryKey("")).toBeNull();
  });

  it("narrows by the last path segment", () => {
    expect(repositoryName("git.example.test/acme/app")).toBe("app");
  });
});
