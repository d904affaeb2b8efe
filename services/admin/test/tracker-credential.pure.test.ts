// A tracker login's rules: the bare host, the one scheme, the required username and token.
import { describe, expect, it } from "@jest/globals";
import { bareHost, parseTrackerLogin } from "../src/domain/tracker-credential.ts";

describe("a tracker login", () => {
  it("keeps the bare host of a host or a URL, lower-case, without port, path, credentials or trailing dot", () => {
    expect(bareHost("Tracker.Example.com")).toBe("tracker.example.com");
    expect(bareHost("https://user:pw@Tracker.Example.com:8443/browse/ABC-1?x=1")).toBe("tracker.example.com");
    expect(bareHost("tracker.example.com.")).toBe("tracker.example.com");
    expect(bareHost("10.0.0.7:8080")).toBe("10.0.0.7");
    for (const bad of ["", "   ", "not a host!", "https://", "-bad-.example.com", `${"a".repeat(64)}.example.com`])
      expect([bad, bareHost(bad)]).toEqual([bad, null]);
  });

  it("takes tracker_basic by default, and requires a username and a token", () => {
    expect(
      parseTrackerLogin({ host: "jira.example.com", apiToken: "t", authScheme: undefined, username: " bot " }),
    ).toEqual({ login: { host: "jira.example.com", apiToken: "t", authScheme: "tracker_basic", username: "bot" } });
    const bad = parseTrackerLogin({ host: "x y", apiToken: "", authScheme: "oauth", username: "" });
    expect("problems" in bad && bad.problems.map((p) => p.path)).toEqual([
      "host",
      "auth_scheme",
      "username",
      "api_token",
    ]);
  });
});
