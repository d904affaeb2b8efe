// The scanner tools on the health panel (cdxgen, scancode): asked of a scanner-runner (ScannerToolService, as the
// admin service) since the tools live in its pods. One question serves both probes of a panel read; the runner
// not answering makes both down with its reason.
import { createContextValues, type Client } from "@connectrpc/connect";
import { ScannerToolService, type ScannerTool } from "@sca/proto/sca/scannerrunner/v1/scanner_tools_pb.ts";
import { callerTokenKey, createServiceClient, serviceCallerToken } from "@sca/rpc";
import { PROBE_TIMEOUT_MS, type Probe } from "./health-probes.ts";

const TOOLS = ["cdxgen", "scancode"] as const;

export function scannerToolProbes(url: string, secretKey: string): Probe[] {
  const client: Client<typeof ScannerToolService> = createServiceClient(ScannerToolService, url, {
    timeoutMs: PROBE_TIMEOUT_MS,
  });
  let asking: Promise<ScannerTool[]> | null = null;
  const tools = (): Promise<ScannerTool[]> => {
    asking ??= (async () => {
      const token = await serviceCallerToken("admin", secretKey);
      const answer = await client.getScannerTools(
        {},
        { contextValues: createContextValues().set(callerTokenKey, token) },
      );
      return answer.tools;
    })().finally(() => setImmediate(() => (asking = null)));
    return asking;
  };
  return TOOLS.map((name) => ({
    name,
    kind: "tool" as const,
    async run() {
      const tool = (await tools()).find((t) => t.name === name);
      if (!tool) throw new Error("the scanner-runner does not report it");
      if (tool.error) throw new Error(tool.error);
      return tool.version;
    },
  }));
}
