// RegistryLoginService through the real admin service (real PostgreSQL, Kafka): the login of (organization,
// registry host) unsealed for the scanner-runner's service caller only, looked up by the host as an image reference
// names it; a login kept with `allowed: false`, another organization's, or another host's is not answered; each
// unsealing is audited.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Code, ConnectError } from "@connectrpc/connect";
import { RegistryCredentialService } from "@sca/proto/sca/admin/v1/registry_credentials_pb.ts";
import { RegistryLoginService } from "@sca/proto/sca/admin/v1/registry_logins_pb.ts";
import { callAs } from "@sca/testkit";
import { startAdmin, waitForEntries, type AdminHarness } from "./support/admin-harness.ts";

let h: AdminHarness;

beforeAll(async () => {
  h = await startAdmin();
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: unknown) => ConnectError.from(e).code,
  );

describe("GetRegistryLogin", () => {
  it("unseals the organization's allowed login for the host, for the scanner-runner only", async () => {
    const organizationId = randomUUID();
    const root = await callAs.superAdmin(randomUUID());
    const credentials = h.admin.client(RegistryCredentialService);
    await credentials.putRegistryCredential(
      { organizationId, registryHost: "https://Registry.Example.com:5000/v2/", username: "ci", password: "p@ss word" },
      root,
    );
    await credentials.putRegistryCredential(
      { organizationId, registryHost: "paused.example.com", username: "x", password: "y", allowed: false },
      root,
    );
    const logins = h.admin.client(RegistryLoginService);
    const runner = await callAs.service("scanner-runner");

    const found = await logins.getRegistryLogin({ organizationId, registryHost: "registry.example.com:5000" }, runner);
    expect(found.login).toMatchObject({ username: "ci", password: "p@ss word" });
    // Another port, a login kept but not allowed, another organization: nothing.
    for (const [org, host] of [
      [organizationId, "registry.example.com"],
      [organizationId, "paused.example.com"],
      [randomUUID(), "registry.example.com:5000"],
    ] as const)
      expect(
        (await logins.getRegistryLogin({ organizationId: org, registryHost: host }, runner)).login,
      ).toBeUndefined();

    // The one unsealing is audited (the two puts before it too), without the password.
    const entries = (await waitForEntries(h.admin.orm, 3)).filter((e) => e.organizationId === organizationId);
    const used = entries.filter((e) => e.action === "registry_credential.used");
    expect(used).toHaveLength(1);
    expect(used[0]).toMatchObject({ targetTable: "registry_credentials", source: "admin" });
    expect(used[0]!.details).toEqual({ registry_host: "registry.example.com:5000", service: "scanner-runner" });
    expect(JSON.stringify(entries)).not.toContain("p@ss word");

    const ask = { organizationId, registryHost: "registry.example.com:5000" };
    expect(await codeOf(logins.getRegistryLogin(ask, await callAs.service("notifier")))).toBe(Code.PermissionDenied);
    expect(await codeOf(logins.getRegistryLogin(ask, root))).toBe(Code.PermissionDenied);
    expect(await codeOf(logins.getRegistryLogin({ ...ask, organizationId: "x" }, runner))).toBe(Code.InvalidArgument);
  });
});
