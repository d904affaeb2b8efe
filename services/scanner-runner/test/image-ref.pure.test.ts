import { describe, expect, it } from "@jest/globals";
import { choosePlatform, imageRefOf, layerKind, platformOf, registryBaseUrl } from "../src/domain/image-ref.ts";

describe("image references as the scan-orchestrator normalises them", () => {
  it("reads the registry, the repository and the tag or digest", () => {
    expect(imageRefOf("docker.io/library/nginx:1.27")).toEqual({
      registry: "docker.io",
      repository: "library/nginx",
      reference: "1.27",
    });
    const digest = `sha256:${"a".repeat(64)}`;
    expect(imageRefOf(`localhost:5000/team/app:1.0@${digest}`)).toEqual({
      registry: "localhost:5000",
      repository: "team/app",
      reference: digest,
    });
    expect(imageRefOf("ghcr.io/org/tool")).toMatchObject({ reference: "latest" });
    expect(() => imageRefOf("")).toThrow("The container scan names no image");
    expect(() => imageRefOf("nginx")).toThrow("names no registry");
    expect(() => imageRefOf("ghcr.io/Org/../x")).toThrow("repository path");
    expect(() => imageRefOf("ghcr.io/org/x@sha256:zz")).toThrow("digest that is not sha256");
  });

  it("speaks https unless the operator names the registry for plain http; Docker Hub at its API host", () => {
    expect(registryBaseUrl("docker.io", []).href).toBe("https://registry-1.docker.io/");
    expect(registryBaseUrl("localhost:5000", ["localhost:5000"]).href).toBe("http://localhost:5000/");
    expect(registryBaseUrl("localhost:5000", ["localhost:6000"]).href).toBe("https://localhost:5000/");
  });

  it("chooses the platform's manifest from an index, and knows which layers it unpacks", () => {
    const entries = [
      { digest: "a", platform: { os: "linux", architecture: "arm", variant: "v6" } },
      { digest: "b", platform: { os: "linux", architecture: "arm", variant: "v7" } },
      { digest: "c", platform: { os: "linux", architecture: "amd64" } },
    ];
    expect(choosePlatform(entries, platformOf("linux/amd64"))?.digest).toBe("c");
    expect(choosePlatform(entries, platformOf("linux/arm/v7"))?.digest).toBe("b");
    expect(choosePlatform(entries, platformOf("windows/amd64"))).toBeNull();
    expect(layerKind("application/vnd.oci.image.layer.v1.tar+zstd")).toBe("unpack");
    expect(layerKind("application/vnd.docker.image.rootfs.foreign.diff.tar.gzip")).toBe("skip");
    expect(() => layerKind("application/vnd.cncf.helm.chart.content.v1.tar+gzip")).toThrow("not a tar layer");
  });
});
