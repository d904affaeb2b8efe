// A key stands for its holder: deactivating the holder stops the key on the very next request, even though the
// gateway holds a cached answer for it.
import { afterAll, beforeAll, expect, it } from "@jest/globals";
import { signIn, startIdentityStack, type IdentityStack } from "./identity-stack.ts";

let s: IdentityStack;
beforeAll(async () => {
  s = await startIdentityStack();
}, 60_000);
afterAll(async () => {
  await s?.close();
});

it("refuses a deactivated holder's key at once", async () => {
  const admin = (await signIn(s.client(), (await s.person({ superAdmin: true })).email)).accessToken;
  const holder = await s.person({ superAdmin: true });
  const holderToken = (await signIn(s.client(), holder.email)).accessToken;
  const issued = await s
    .client()
    .request("POST", "/v1/api-keys", { bearer: holderToken, body: { name: "ci", scope: "org" } });
  expect(issued.status).toBe(201);
  const key = issued.json.raw_key as string;

  // Authenticated (keys may not manage keys, hence 403 rather than 401), and now cached by the gateway.
  expect((await s.client().request("GET", "/v1/api-keys", { bearer: key })).status).toBe(403);
  expect((await s.client().request("GET", "/v1/api-keys", { bearer: key })).status).toBe(403);

  const deactivated = await s.client().request("PATCH", `/v1/admin/users/${holder.id}/deactivate`, { bearer: admin });
  expect(deactivated.status).toBe(200);
  expect((await s.client().request("GET", "/v1/api-keys", { bearer: key })).status).toBe(401);
});
