import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@sca/proto/grpc/health/v1/health_pb.ts";
import { createServiceClient } from "@sca/rpc";

// A real domain service process: migrate command, health over Connect, graceful stop on SIGTERM.
const serviceDir = fileURLToPath(new URL("../../../services/admin/", import.meta.url));
const env = { ...process.env, RPC_PORT: "0", LOG_LEVEL: "INFO" };

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

  it("stops at start-up with one line naming a bad key", () => {
    const run = spawnSync(process.execPath, ["src/main.ts"], { cwd: serviceDir, env: { ...env, RPC_PORT: "99999" }, encoding: "utf8" });
    expect(run.status).toBe(78);
    expect(run.stderr.trim()).toBe("configuration error: RPC_PORT must be between 0 and 65535");
  });
});
