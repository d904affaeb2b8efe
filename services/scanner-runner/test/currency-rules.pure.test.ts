// The currency lookup's pure rules: each registry's URL and answer shape, and the comparison in the ecosystem's own
// version order.
import { describe, expect, it } from "@jest/globals";
import { currencyOf } from "../src/domain/currency/currency.ts";
import { goProxyEscaped, latestReleaseOf, latestUrlOf, registryOf } from "../src/domain/currency/registries.ts";

const body = (doc: unknown) => Buffer.from(JSON.stringify(doc));

describe("registry URLs", () => {
  it("follow each registry's API, under a base with or without its trailing slash", () => {
    expect(latestUrlOf("npm", "http://r/", "@types/node")).toBe("http://r/@types%2Fnode");
    expect(latestUrlOf("npm", "http://r", "lodash")).toBe("http://r/lodash");
    expect(latestUrlOf("pypi", "http://r", "django")).toBe("http://r/pypi/django/json");
    expect(latestUrlOf("go", "http://r", "github.com/Azure/go-autorest")).toBe(
      "http://r/github.com/!azure/go-autorest/@latest",
    );
    expect(latestUrlOf("maven", "http://r/maven2", "org.yaml:snakeyaml")).toBe(
      "http://r/maven2/org/yaml/snakeyaml/maven-metadata.xml",
    );
    expect(latestUrlOf("maven", "http://r", "no-artifact")).toBeNull();
    expect(latestUrlOf("nuget", "http://r", "Newtonsoft.Json")).toBe(
      "http://r/v3-flatcontainer/newtonsoft.json/index.json",
    );
    expect(goProxyEscaped("github.com/BurntSushi/toml")).toBe("github.com/!burnt!sushi/toml");
  });

  it("exist for the language ecosystems only", () => {
    expect(registryOf("PyPI")).toBe("pypi");
    expect(registryOf("crates.io")).toBe("crates");
    expect(registryOf("Debian:12")).toBeNull();
    expect(registryOf("Alpine:v3.20")).toBeNull();
  });
});

describe("registry answers", () => {
  it("name the latest version and its day", () => {
    expect(
      latestReleaseOf(
        "npm",
        body({ "dist-tags": { latest: "4.17.21" }, time: { "4.17.21": "2021-02-20T15:42:16.891Z" } }),
      ),
    ).toEqual({
      version: "4.17.21",
      releaseDate: "2021-02-20",
    });
    // npm's abbreviated document has no times.
    expect(latestReleaseOf("npm", body({ "dist-tags": { latest: "1.0.0" } }))).toEqual({
      version: "1.0.0",
      releaseDate: null,
    });
    expect(latestReleaseOf("crates", body({ crate: { max_version: "2.0.0-rc.1" }, versions: [] }))).toEqual({
      version: "2.0.0-rc.1",
      releaseDate: null,
    });
    expect(latestReleaseOf("rubygems", body({ version: "unknown" }))).toBeNull();
    expect(latestReleaseOf("nuget", body({ versions: ["1.0.0-beta", "0.9.0"] }))).toEqual({
      version: "0.9.0",
      releaseDate: null,
    });
    expect(latestReleaseOf("nuget", body({ versions: ["1.0.0-beta"] }))).toEqual({
      version: "1.0.0-beta",
      releaseDate: null,
    });
    expect(latestReleaseOf("pypi", body({ message: "Not Found" }))).toBeNull();
    expect(() => latestReleaseOf("npm", Buffer.from("<html>"))).toThrow();
  });
});

describe("currency", () => {
  const latest = (version: string) => ({ version, releaseDate: null });

  it("compares in the ecosystem's order", () => {
    expect(currencyOf("npm", "4.17.20", latest("4.17.21")).state).toBe("outdated");
    expect(currencyOf("npm", "4.17.21", latest("4.17.21")).state).toBe("current");
    // A pre-release ahead of the latest is not behind it.
    expect(currencyOf("npm", "5.0.0-beta.1", latest("4.17.21")).state).toBe("current");
    // PEP 440: 1.0 is 1.0.0; 1.0rc1 comes before 1.0.
    expect(currencyOf("PyPI", "1.0", latest("1.0.0")).state).toBe("current");
    expect(currencyOf("PyPI", "1.0rc1", latest("1.0")).state).toBe("outdated");
    // Maven: 1.10 is after 1.9 (not text order).
    expect(currencyOf("Maven", "1.9", latest("1.10")).state).toBe("outdated");
    expect(currencyOf("Go", "v0.0.0-20230101000000-abcdefabcdef", latest("v0.1.0")).state).toBe("outdated");
  });

  it("is unknown without an answer or with a version the scheme does not read", () => {
    expect(currencyOf("npm", "1.0.0", null)).toEqual({ state: "unknown", latest: null, latestReleaseDate: null });
    expect(currencyOf("npm", "not-a-version", latest("1.0.0"))).toEqual({
      state: "unknown",
      latest: "1.0.0",
      latestReleaseDate: null,
    });
  });
});
