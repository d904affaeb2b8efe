import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";
import { openDatabase } from "@sca/db";
import { createKafka } from "@sca/kafka";
import { createLogger } from "@sca/log";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@sca/proto/grpc/health/v1/health_pb.ts";
import { createServiceClient } from "@sca/rpc";
import { testServers, uniqueName } from "@sca/testkit";

// A real domain service process: migrate command, health over Connect, graceful stop on SIGTERM.
const serviceDir = fileURLToPath(new URL("../../../services/admin/", import.meta.url));
// A topic prefix of its own: admin consumes the audit topic, and must never join a running portal's group.
const env = { ...process.env, RPC_PORT: "0", LOG_LEVEL: "INFO", KAFKA_TOPIC_PREFIX: `${uniqueName("runtime_proc")}.` };

describe("a domain service process", () => {
  it("applies its migrations with the migrate command and exits 0", () => {
    const run = spawnSync(process.execPath, ["src/main.ts", "migrate"], { cwd: serviceDir, env, encoding: "utf8" });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/"schema":"admin"/);
  });

  it("serves gRPC health, then drains and exits 0 on SIGTERM", async () => {
    const child = spawn(process.execPath, ["src/main.ts"], { cwd: serviceDir, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /"port":(\d+),"msg":"admin rpc server listening"/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once("exit", (code) => reject(new Error(`exited early with ${code}: ${out}`)));
    });
    const health = createServiceClient(Health, `http://127.0.0.1:${port}`);
    expect((await health.check({ service: "" })).status).toBe(Status.SERVING);
    expect((await health.check({ service: "readiness" })).status).toBe(Status.SERVING);
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(out).toContain('"msg":"shutting down"');
    expect(out).toContain('"msg":"stopped"');
  });

  it("creates the Kafka topics it declares, under the prefix, with the migrate command", async () => {
    const service = fileURLToPath(new URL("./support/kafka-service.ts", import.meta.url));
    const prefix = `${uniqueName("test")}.`;
    const schema = uniqueName("runtime_migrate");
    const migrate = () =>
      spawnSync(process.execPath, [service, "migrate"], {
        env: { ...env, KAFKA_TOPIC_PREFIX: prefix, TEST_SCHEMA: schema },
        encoding: "utf8",
      });
    const admin = createKafka({
      brokers: testServers().kafkaBrokers,
      clientId: uniqueName("runtime_test"),
      logger: createLogger("runtime-test", "ERROR"),
      topicPrefix: "",
    }).admin();
    await admin.connect();
    const ownTopics = async () => (await admin.listTopics()).filter((t) => t.startsWith(prefix)).sort();
    try {
      const first = migrate();
      expect(first.status).toBe(0);
      expect(await ownTopics()).toEqual([
        `${prefix}sca.audit.events`,
        `${prefix}sca.domain.events`,
        `${prefix}sca.domain.events.dlq`,
      ]);
      expect(first.stdout).toContain('"msg":"migrations applied"');
      // Again, as each upgrade's migration Job does: the topics exist, and that is fine.
      expect(migrate().status).toBe(0);
    } finally {
      const orphans = await ownTopics();
      if (orphans.length > 0) await admin.deleteTopics({ topics: orphans });
      await admin.disconnect();
      const orm = await openDatabase({ url: testServers().databaseUrl, schema, entities: [], migrations: [] });
      await orm.em.getConnection().execute(`drop schema if exists "${schema}" cascade`);
      await orm.close();
    }
  }, 60_000);

  it("stops at start-up with one line naming a bad key", () => {
    const run = spawnSync(process.execPath, ["src/main.ts"], {
      cwd: serviceDir,
      env: { ...env, RPC_PORT: "99999" },
      encoding: "utf8",
    });
    expect(run.status).toBe(78);
    expect(run.stderr.trim()).toBe("configuration error: RPC_PORT must be between 0 and 65535");
  });
});
