// An organization's container-registry logins end to end (the spec's Registry login, docs/container-scans.md): a real
// identity and admin behind a real gateway (real PostgreSQL, Redis, Kafka). super_admin only; the password is
// write-only (never answered, stored sealed); a pasted URL names the same registry as its host typed by hand; a PUT
// for a registry replaces its login; every change reaches the audit log without the password.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { eventually } from "@sca/testkit";
import { startAuditStack, type AuditStack } from "./audit-stack.ts";

let stack: AuditStack;

beforeAll(async () => {
  stack = await startAuditStack();
}, 90_000);

afterAll(async () => {
  await stack?.close();
});

describe("registry credentials", () => {
  it("are created and replaced per registry, listed without their password, stored sealed, removed, and audited", async () => {
    const admin = await stack.superAdmin();
    const organizationId = randomUUID();
    const path = `/v1/admin/organizations/${organizationId}/registry-credentials`;
    const first = `first-password-${randomUUID()}`;
    const second = `second-password-${randomUUID()}`;

    const created = await stack.request("PUT", path, {
      bearer: admin.token,
      body: {
        registry_host: "https://Registry.Example.com:5000/v2/team/app/manifests/1.0",
        username: "puller",
        password: first,
      },
    });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.any(String),
      organization_id: organizationId,
      registry_host: "registry.example.com:5000",
      username: "puller",
      allowed: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id = created.json.id as string;

    // The same registry typed by hand: replaced (same id), not doubled.
    const replaced = await stack.request("PUT", path, {
      bearer: admin.token,
      body: {
        registry_host: "registry.example.com:5000",
        username: "puller-2",
        password: second,
        allowed: false,
      },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({
      id,
      registry_host: "registry.example.com:5000",
      username: "puller-2",
      allowed: false,
    });

    const listed = await stack.request("GET", path, { bearer: admin.token });
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({ total: 1, items: [{ id, username: "puller-2" }] });
    for (const text of [created.text, replaced.text, listed.text]) {
      expect(text).not.toContain(first);
      expect(text).not.toContain(second);
      expect(text).not.toMatch(/password/);
    }

    const [row] = await stack.admin.orm.em
      .fork()
      .getConnection()
      .execute<{ password_sealed: string }[]>("select password_sealed from registry_credentials where id = ?", [id]);
    expect(row!.password_sealed).not.toContain(second);
    expect(row!.password_sealed.length).toBeGreaterThan(second.length);

    const elsewhere = await stack.request("GET", `/v1/admin/organizations/${randomUUID()}/registry-credentials`, {
      bearer: admin.token,
    });
    expect(elsewhere.json).toEqual({ items: [], total: 0 });

    expect((await stack.request("DELETE", `${path}/${id}`, { bearer: admin.token })).status).toBe(204);
    expect((await stack.request("DELETE", `${path}/${id}`, { bearer: admin.token })).status).toBe(404);
    expect((await stack.request("GET", path, { bearer: admin.token })).json).toEqual({ items: [], total: 0 });

    const audited = await eventually(
      () => stack.request("GET", `/v1/admin/audit?target_table=registry_credentials&q=${id}`, { bearer: admin.token }),
      (r) => (r.json.items as unknown[] | undefined)?.length === 3,
    );
    expect((audited.json.items as { action: string; source: string }[]).map((e) => [e.source, e.action])).toEqual([
      ["admin", "registry_credential.deleted"],
      ["admin", "registry_credential.replaced"],
      ["admin", "registry_credential.created"],
    ]);
    expect(audited.text).not.toContain(first);
    expect(audited.text).not.toContain(second);
  });

  it("refuse anyone but a super_admin (404) and malformed bodies (422)", async () => {
    const admin = await stack.superAdmin();
    const t = await stack.team();
    const lead = await stack.person([[t.id, "team_admin"]]);
    const path = `/v1/admin/organizations/${randomUUID()}/registry-credentials`;
    const good = { registry_host: "ghcr.io", username: "bot", password: "s3cret" };
    expect((await stack.request("GET", path, { bearer: lead.token })).status).toBe(404);
    expect((await stack.request("PUT", path, { bearer: lead.token, body: good })).status).toBe(404);
    expect((await stack.request("DELETE", `${path}/${randomUUID()}`, { bearer: lead.token })).status).toBe(404);
    for (const bad of [
      { ...good, username: undefined },
      { ...good, password: undefined },
      { ...good, password: "" },
      { ...good, registry_host: "not a host!" },
      { ...good, registry_host: "" },
      { ...good, allowed: "yes" },
    ]) {
      const reply = await stack.request("PUT", path, { bearer: admin.token, body: bad });
      expect([reply.status, bad]).toEqual([422, bad]);
      expect(reply.contentType).toMatch(/application\/problem\+json/);
      expect(reply.text).not.toContain("s3cret");
    }
    expect((await stack.request("GET", path, { bearer: admin.token })).json).toEqual({ items: [], total: 0 });
  });
});
