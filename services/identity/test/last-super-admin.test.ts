// An active super_admin always remains: neither a demotion nor a deactivation may remove the last one.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Code, ConnectError } from "@connectrpc/connect";
import { fromConnectError } from "@sca/problem";
import { startIdentity, type IdentityHarness } from "./support/identity-harness.ts";

let h: IdentityHarness;

beforeAll(async () => {
  // Only its handlers are called: in memory, through the same definition, without a server.
  h = await startIdentity({ listen: false });
});
afterAll(async () => {
  await h.close();
});

async function problemOf(call: Promise<unknown>) {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConnectError);
  return fromConnectError(err as ConnectError);
}

const isActive = async (id: string) =>
  (await h.orm.em.fork().execute<{ is_active: boolean }[]>("select is_active from users where id = ?", [id]))[0]!
    .is_active;

describe("the last active super_admin", () => {
  it("cannot be deactivated, by itself or anyone; another super_admin can be", async () => {
    const first = await h.user({ superAdmin: true });
    const refused = await problemOf(h.admin.deactivateUser({ userId: first }, await h.as(first)));
    expect(refused.status).toBe(409);
    expect(refused.init.code).toBe("last-super-admin");
    expect(await isActive(first)).toBe(true);

    const second = await h.user({ superAdmin: true });
    const { user } = await h.admin.deactivateUser({ userId: first }, await h.as(second));
    expect(user!.isActive).toBe(false);
    // `second` is now the only active one; an inactive super_admin does not count.
    await expect(h.admin.deactivateUser({ userId: second }, await h.as(second))).rejects.toMatchObject({
      code: Code.AlreadyExists,
    });
    expect(await isActive(second)).toBe(true);
    // Deactivating someone who is not a super_admin is unaffected.
    const person = await h.user();
    expect((await h.admin.deactivateUser({ userId: person }, await h.as(second))).user!.isActive).toBe(false);
  });

  it("cannot be demoted either", async () => {
    const [only] = await h.orm.em
      .fork()
      .execute<{ id: string }[]>("select id from users where is_superuser and is_active");
    const team = (await h.directory.createTeam({ name: "T", slug: "last-sa" }, await h.as(only!.id))).team!.id;
    const refused = await problemOf(
      h.directory.changeUserRole({ userId: only!.id, role: "developer", teamId: team }, await h.as(only!.id)),
    );
    expect(refused.status).toBe(409);
    expect(refused.init.code).toBe("last-super-admin");
  });
});
