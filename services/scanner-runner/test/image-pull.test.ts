// The image pull and the layers' unpacking (docs/container-scans.md) against a real OCI registry on loopback
// (go-containerregistry's cmd/registry, started by the test kit): images pushed through the distribution API,
// pulled into a real workspace, the tree then read from disk. Hostile layers: `..` names, links leading out (alone
// and through each other), writes through a link, whiteouts, and the entry, byte and download caps.
import { lstat, mkdtemp, readFile, readlink, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startOciRegistry, startRegistryAuthProxy, tarOf, type TestOciRegistry } from "@sca/testkit";
import { CloneAllowList } from "../src/domain/clone-target.ts";
import { platformOf } from "../src/domain/image-ref.ts";
import { pullImageTree, type ImageLimits } from "../src/fetch/container-image.ts";
import type { RegistryLogin } from "../src/fetch/registry-client.ts";
import { openWorkspace, type Workspace } from "../src/sandbox/workspace.ts";

let registry: TestOciRegistry;
let workDir: string;
const open: Workspace[] = [];

const limits = (over: Partial<ImageLimits> = {}): ImageLimits => ({
  allowList: new CloneAllowList(["localhost"]),
  plainHttpHosts: [registry.host],
  timeoutMs: 30_000,
  maxBytes: 64 * 1024 ** 2,
  maxEntries: 1000,
  maxExpandedBytes: 16 * 1024 ** 2,
  platform: platformOf("linux/amd64"),
  ...over,
});

async function pull(ref: string, over: Partial<ImageLimits> = {}, login?: RegistryLogin) {
  const ws = await openWorkspace(workDir, 65534);
  open.push(ws);
  const pulled = await pullImageTree(ws, ref, limits(over), login, AbortSignal.timeout(60_000));
  return { ws, pulled };
}

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

beforeAll(async () => {
  registry = await startOciRegistry();
  workDir = await mkdtemp(join(tmpdir(), "sca-image-pull-"));
}, 60_000);

afterAll(async () => {
  for (const ws of open) await ws.remove();
  await registry?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe("pulling an image", () => {
  it("stacks the layers: later files win, whiteouts and opaque directories hide what is below", async () => {
    const base = await tarOf([
      { name: "etc/" },
      { name: "etc/os-release", data: 'ID=debian\nVERSION_ID="12"\n' },
      { name: "app/" },
      { name: "app/config.txt", data: "old" },
      { name: "app/gone.txt", data: "removed by a whiteout" },
      { name: "cache/" },
      { name: "cache/a", data: "emptied by an opaque whiteout" },
      { name: "usr/bin/tool", data: "#!/bin/sh\n", mode: 0o755 },
      { name: "bin", symlinkTo: "/usr/bin" },
      { name: "usr/bin/tool-again", hardLinkTo: "usr/bin/tool" },
    ]);
    const top = await tarOf([
      { name: "./app/config.txt", data: "new" },
      { name: "app/.wh.gone.txt", data: "" },
      { name: "cache/b", data: "this layer's own" },
      { name: "cache/.wh..wh..opq", data: "" },
    ]);
    const digest = await registry.push("team/stacked", "1.0", { layers: [base, top] });
    const { ws, pulled } = await pull(`${registry.host}/team/stacked:1.0`);

    expect(pulled).toMatchObject({ image: `${registry.host}/team/stacked`, digest, layers: 2, whiteouts: 2 });
    expect(await readFile(join(ws.tree, "app/config.txt"), "utf8")).toBe("new");
    expect(await exists(join(ws.tree, "app/gone.txt"))).toBe(false);
    expect((await readdir(join(ws.tree, "cache"))).sort()).toEqual(["b"]);
    // The image's /usr/bin, not the runner's: an absolute link is made relative to the tree.
    expect(await readlink(join(ws.tree, "bin"))).toBe("usr/bin");
    expect(await readFile(join(ws.tree, "bin/tool"), "utf8")).toBe("#!/bin/sh\n");
    expect((await lstat(join(ws.tree, "usr/bin/tool"))).mode & 0o777).toBe(0o755);
    expect((await lstat(join(ws.tree, "usr/bin/tool-again"))).nlink).toBe(2);
    expect((await lstat(join(ws.tree, "etc/os-release"))).mode & 0o777).toBe(0o644);
  });

  it("chooses the configured platform from an image index, by digest", async () => {
    await registry.pushIndex("team/multi", "2.0", [
      { os: "linux", architecture: "arm64", image: { layers: [await tarOf([{ name: "arch", data: "arm64" }])] } },
      { os: "linux", architecture: "amd64", image: { layers: [await tarOf([{ name: "arch", data: "amd64" }])] } },
    ]);
    const { ws } = await pull(`${registry.host}/team/multi:2.0`);
    expect(await readFile(join(ws.tree, "arch"), "utf8")).toBe("amd64");
    await expect(pull(`${registry.host}/team/multi:2.0`, { platform: platformOf("linux/s390x") })).rejects.toThrow(
      "The image has no manifest for linux/s390x (SCAN_IMAGE_PLATFORM).",
    );
  });

  it("drops links leading out of the image, alone or through each other, and never writes through a link", async () => {
    const layer = await tarOf([
      { name: "etc/" },
      { name: "etc/shadow-link", symlinkTo: "../../../../../etc/shadow" },
      { name: "d1/" },
      { name: "d1/d2/" },
      { name: "d1/d2/up", symlinkTo: "../.." },
      { name: "d1/d2/out", symlinkTo: "up/.." },
      { name: "host-etc", symlinkTo: "/etc" },
      { name: "host-etc/passwd", data: "written through a link" },
      { name: "stolen", hardLinkTo: "../../etc/passwd" },
    ]);
    await registry.push("team/links", "1", { layers: [layer] });
    const { ws, pulled } = await pull(`${registry.host}/team/links:1`);
    expect(await exists(join(ws.tree, "etc/shadow-link"))).toBe(false);
    expect(await exists(join(ws.tree, "d1/d2/up"))).toBe(true);
    // Each link is inside on its own; followed together they lead above the tree, so the second is removed.
    expect(await exists(join(ws.tree, "d1/d2/out"))).toBe(false);
    // host-etc points at the tree's etc; the file under it was not written there (nor anywhere).
    expect(await readlink(join(ws.tree, "host-etc"))).toBe("etc");
    expect(await exists(join(ws.tree, "etc/passwd"))).toBe(false);
    expect(await exists(join(ws.tree, "stolen"))).toBe(false);
    expect(pulled.skipped).toBe(4);
  });

  it("refuses an entry climbing out with .., and says which layer", async () => {
    const evil = await tarOf([{ name: "app/../../../tmp/evil", data: "x" }]);
    await registry.push("team/evil", "1", { layers: [await tarOf([{ name: "ok", data: "ok" }]), evil] });
    await expect(pull(`${registry.host}/team/evil:1`)).rejects.toThrow(
      "The image's layer 2 holds an entry climbing out of the tree with .. (app/../../../tmp/evil).",
    );
  });

  it("stops at the entry, expanded-byte and download caps", async () => {
    const many = await tarOf(Array.from({ length: 30 }, (_, i) => ({ name: `f${i}`, data: "x" })));
    await registry.push("team/many", "1", { layers: [many] });
    await expect(pull(`${registry.host}/team/many:1`, { maxEntries: 20 })).rejects.toThrow(
      "The image's layers hold more than 20 entries (SCAN_IMAGE_MAX_ENTRIES); it was not scanned.",
    );
    // 4 MiB of zeros: a few KiB compressed, a bomb unpacked.
    const bomb = await tarOf([{ name: "zeros", data: Buffer.alloc(4 * 1024 ** 2) }]);
    await registry.push("team/bomb", "1", { layers: [bomb] });
    await expect(pull(`${registry.host}/team/bomb:1`, { maxExpandedBytes: 1024 ** 2 })).rejects.toThrow(
      `The image's layers expand past SCAN_IMAGE_MAX_EXPANDED_BYTES (${1024 ** 2} bytes); it was not scanned.`,
    );
    await expect(pull(`${registry.host}/team/bomb:1`, { maxBytes: 1024 })).rejects.toThrow(
      "The image is larger than SCAN_IMAGE_MAX_BYTES (1024 bytes); the pull was stopped.",
    );
  });

  it("refuses a registry on a non-public address unless allowed, and names a missing image", async () => {
    await expect(pull(`127.0.0.1:${registry.port}/team/stacked:1.0`)).rejects.toThrow(
      "The image's registry resolves to 127.0.0.1, a loopback, private or link-local address the scanner does not " +
        "pull from; an operator may allow it with SCAN_REGISTRY_ALLOWED_HOSTS.",
    );
    await expect(pull(`${registry.host}/team/stacked:9.9`)).rejects.toThrow(
      `The registry has no image ${registry.host}/team/stacked at 9.9.`,
    );
  });
});

describe("pulling from a registry that requires a login", () => {
  const login: RegistryLogin = { username: "puller", password: "s3cret-registry-pass" };

  for (const scheme of ["basic", "bearer"] as const) {
    it(`sends the login as the ${scheme} challenge asks, and says whether a login was missing or refused`, async () => {
      await registry.push("private/app", "1", { layers: [await tarOf([{ name: "etc/hello", data: "hi" }])] });
      const proxy = await startRegistryAuthProxy(registry.port, { scheme, ...login });
      try {
        const over = { plainHttpHosts: [proxy.host] };
        const ref = `${proxy.host}/private/app:1`;
        await expect(pull(ref, over)).rejects.toThrow(
          `The image's registry (${proxy.host}) asks for a login, and the project's organization keeps no registry ` +
            "login for it; a super admin adds one under the organization's registry credentials.",
        );
        const wrong = pull(ref, over, { ...login, password: "not-it" });
        await expect(wrong).rejects.toThrow(
          `The image's registry (${proxy.host}) did not accept the organization's registry login for it; check the ` +
            "username and password kept under the organization's registry credentials.",
        );
        await expect(wrong.catch((e: Error) => e.message)).resolves.not.toContain("not-it");

        const { ws, pulled } = await pull(ref, over, login);
        expect(await readFile(join(ws.tree, "etc/hello"), "utf8")).toBe("hi");
        expect(pulled.layers).toBe(1);
        // The login went only where the challenge asked: as Basic to the registry (basic) or to its token realm
        // (bearer, the registry itself seeing only the token).
        const basic = `Basic ${Buffer.from(`${login.username}:${login.password}`).toString("base64")}`;
        const withLogin = proxy.seen.filter((r) => r.authorization === basic).map((r) => r.path.split("?")[0]);
        if (scheme === "bearer") expect(new Set(withLogin)).toEqual(new Set(["/token"]));
        else expect(withLogin.length).toBeGreaterThan(0);
        if (scheme === "bearer")
          expect(proxy.seen.some((r) => r.path.startsWith("/v2/") && r.authorization?.startsWith("Bearer "))).toBe(
            true,
          );
      } finally {
        await proxy.stop();
      }
    });
  }

  it("does not send the login to a token realm on plain http the operator did not name", async () => {
    await registry.push("private/app", "1", { layers: [await tarOf([{ name: "etc/hello", data: "hi" }])] });
    const proxy = await startRegistryAuthProxy(registry.port, { scheme: "bearer", ...login, realmByAddress: true });
    try {
      const over = { plainHttpHosts: [proxy.host], allowList: new CloneAllowList(["localhost", "127.0.0.1"]) };
      await expect(pull(`${proxy.host}/private/app:1`, over, login)).rejects.toThrow(
        `The image's registry sends its token service to plain http (127.0.0.1:${proxy.port}); the registry login ` +
          "is not sent there unless SCAN_REGISTRY_PLAIN_HTTP_HOSTS names it.",
      );
      expect(proxy.seen.some((r) => r.path.startsWith("/token"))).toBe(false);
      const named = { ...over, plainHttpHosts: [proxy.host, `127.0.0.1:${proxy.port}`] };
      expect((await pull(`${proxy.host}/private/app:1`, named, login)).pulled.layers).toBe(1);
    } finally {
      await proxy.stop();
    }
  });
});
