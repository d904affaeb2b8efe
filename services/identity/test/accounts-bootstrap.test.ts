import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ensureSuperAdmin } from "../src/commands/bootstrap-admin.ts";
import { startIdentity, type IdentityHarness } from "./support/identity-harness.ts";

let h: IdentityHarness;
// Only its handlers are called: in memory, through the same definition, without a server.
beforeAll(async () => {
  h = await startIdentity({ listen: false });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe("bootstrap admin", () => {
  it("refuses a weak ADMIN_PASSWORD or a bad ADMIN_EMAIL", async () => {
    await expect(ensureSuperAdmin(h.orm, { email: "root@example.com", password: "password1" })).rejects.toThrow(
      /too common/,
    );
    await expect(ensureSuperAdmin(h.orm, { email: "root", password: undefined })).rejects.toThrow(/e-mail/);
  });

  it("creates one super_admin with a generated strong password that signs in, then does nothing", async () => {
    const first = await ensureSuperAdmin(h.orm, { email: "Root@Example.com", password: undefined });
    if (first.kind !== "created") throw new Error("expected creation");
    expect(first.email).toBe("root@example.com");
    expect(first.password.length).toBeGreaterThanOrEqual(24);
    const login = await h.accounts.login({ email: first.email, password: first.password });
    if (login.outcome.case !== "session") throw new Error("expected a session");
    expect(await ensureSuperAdmin(h.orm, { email: "other@example.com", password: undefined })).toEqual({
      kind: "exists",
    });
    const [row] = await h.orm.em
      .getConnection()
      .execute<{ n: number }[]>("select count(*)::int as n from users where is_superuser");
    expect(row!.n).toBe(1);
  });
});
