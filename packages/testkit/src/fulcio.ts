// A real Fulcio (scripts/setup/fulcio.sh) on free loopback ports, the certificate authority keyless signing is tested
// against (docs/signing.md, "Keyless"): its ephemeral CA (a root made at start, kept in memory), the test OpenID
// provider as its only issuer (trusted through the test CA), and no certificate transparency log, since none runs
// here (its certificates carry no SCT).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { freePort } from "./free-port.ts";
import { spawnOnFreePort } from "./spawn-on-free-port.ts";
import { pinnedVersion, toolsDir } from "./tools.ts";

export interface TestFulcio {
  /** http://127.0.0.1:<port>: SIGNING_CA_URL. */
  url: string;
  /** The CA's root certificate (PEM): the chain cosign's --certificate-chain takes. */
  rootPem: string;
  stop(): Promise<void>;
}

export interface FulcioIssuer {
  issuer: string;
  /** The audience Fulcio expects in the issuer's tokens. */
  clientId: string;
  /** The CA the issuer's https certificate chains to. */
  caPem: string;
}

/** .tools/fulcio-<FULCIO_VERSION>/fulcio. */
function fulcioBinary(): string {
  const bin = join(toolsDir(), `fulcio-${pinnedVersion("FULCIO_VERSION")}`, "fulcio");
  if (!existsSync(bin)) throw new Error(`no Fulcio at ${bin}: run bash scripts/setup/fulcio.sh`);
  return bin;
}

export async function startFulcio(issuer: FulcioIssuer): Promise<TestFulcio> {
  const dir = await mkdtemp(join(tmpdir(), "fulcio-"));
  const caFile = join(dir, "issuer-ca.pem");
  const config = join(dir, "config.json");
  await writeFile(caFile, issuer.caPem);
  // Type "email": the certificate's identity is the token's verified email, its issuer extension the issuer.
  await writeFile(
    config,
    JSON.stringify({
      OIDCIssuers: { [issuer.issuer]: { IssuerURL: issuer.issuer, ClientID: issuer.clientId, Type: "email" } },
    }),
  );
  let output = "";
  let tries = 0;
  const running = await spawnOnFreePort(
    async (http) => {
      const [grpc, metrics] = [await freePort(), await freePort()];
      // prettier-ignore
      const args = [
        "serve", "--ca", "ephemeralca", "--config-path", config, "--ct-log-url", "",
        "--host", "127.0.0.1", "--port", String(http), "--grpc-host", "127.0.0.1", "--grpc-port", String(grpc),
        "--metrics-port", String(metrics), "--log_type", "prod",
        // An abstract socket of its own: the default name is one per machine, and test runs share the machine.
        "--legacy-unix-domain-socket", `@${basename(dir)}-${tries++}`,
      ];
      const started = spawn(fulcioBinary(), args, {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "", HOME: dir, SSL_CERT_FILE: caFile },
        stdio: ["ignore", "pipe", "pipe"],
      });
      started.stdout.on("data", (c: Buffer) => (output += c.toString()));
      started.stderr.on("data", (c: Buffer) => (output += c.toString()));
      return started;
    },
    async (http) => (await fetch(`http://127.0.0.1:${http}/api/v1/rootCert`)).ok,
  );
  if (!running) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`Fulcio did not start: ${output.slice(-2000)}`);
  }
  const { child, port } = running;
  const url = `http://127.0.0.1:${port}`;
  const rootPem = await (await fetch(`${url}/api/v1/rootCert`)).text();
  return {
    url,
    rootPem,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((done) => child.once("exit", done));
        child.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
