// The test kit starts a service by the path production takes: its definition, with a port, schema and topic prefix
// of its own; close() leaves nothing behind.
import { describe, expect, it } from "@jest/globals";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@sca/proto/grpc/health/v1/health_pb.ts";
import { CALLER_HEADER, verifyCallerToken } from "@sca/rpc";
import { callAs, startService, TEST_SECRET } from "../src/index.ts";
import { withTestDatabase } from "../src/test-database.ts";

async function schemaExists(schema: string): Promise<boolean> {
  const [row] = await withTestDatabase((db) =>
    db.em
      .getConnection()
      .execute<{ n: number }[]>("select count(*)::int as n from information_schema.schemata where schema_name = ?", [
        schema,
      ]),
  );
  return row!.n === 1;
}

describe("startService", () => {
  it("starts a service by name on an ephemeral port over a migrated schema of its own, and removes the schema on close", async () => {
    const admin = await startService("admin");
    try {
      expect(admin.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(admin.schema).toMatch(/^admin_/);
      const health = admin.client(Health);
      expect((await health.check({ service: "readiness" })).status).toBe(Status.SERVING);
    } finally {
      await admin.close();
    }
    expect(await schemaExists(admin.schema)).toBe(false);
  }, 60_000);

  it("serves the same handlers in memory when asked not to listen", async () => {
    const policy = await startService("policy", { listen: false });
    try {
      expect(policy.url).toBeUndefined();
      expect((await policy.client(Health).check({ service: "readiness" })).status).toBe(Status.SERVING);
    } finally {
      await policy.close();
    }
  }, 60_000);
});

describe("callAs", () => {
  it("carries a caller token signed with the test secret", async () => {
    const options = await callAs.superAdmin("0190f0e0-0000-7000-8000-000000000001");
    const caller = await verifyCallerToken(options.headers[CALLER_HEADER]!, TEST_SECRET);
    expect(caller).toMatchObject({ kind: "user", user_id: "0190f0e0-0000-7000-8000-000000000001", is_superuser: true });
    expect(callAs.token("t")).toEqual({ headers: { [CALLER_HEADER]: "t" } });
  });
});
