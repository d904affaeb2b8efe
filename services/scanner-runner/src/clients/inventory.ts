// projects' InventoryService, as the worker calls it: on its own behalf (a `service` caller signed per call), with
// the job's signal, so stopping or cancelling abandons the call.
import { Code, ConnectError, createContextValues, type Client } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { InventoryService, type IngestInventoryRequestSchema } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { callerTokenKey, createServiceClient, serviceCallerToken } from "@sca/rpc";
import { JobInputError } from "../domain/scan-job.ts";

export interface InventoryIngestion {
  ingest(
    request: MessageInitShape<typeof IngestInventoryRequestSchema>,
    signal: AbortSignal,
  ): Promise<{ componentCount: number; edgeCount: number; alreadyIngested: boolean }>;
}

/** The largest ingestion the worker waits for (a 50,000-component inventory takes seconds). */
const INGEST_TIMEOUT_MS = 300_000;

export function projectsInventory(url: string, secretKey: string): InventoryIngestion {
  const client: Client<typeof InventoryService> = createServiceClient(InventoryService, url, {
    timeoutMs: INGEST_TIMEOUT_MS,
  });
  return {
    async ingest(request, signal) {
      const token = await serviceCallerToken("scanner-runner", secretKey);
      try {
        return await client.ingestInventory(request, {
          signal,
          contextValues: createContextValues().set(callerTokenKey, token),
        });
      } catch (err) {
        signal.throwIfAborted();
        throw refusalOf(err) ?? err;
      }
    },
  };
}

/** What projects refused for good, as the scan's error_message; undefined: the call may pass next time. */
function refusalOf(err: unknown): JobInputError | undefined {
  const code = ConnectError.from(err).code;
  if (code === Code.NotFound) return new JobInputError("The project no longer exists; the inventory was not stored.");
  if (code === Code.InvalidArgument)
    return new JobInputError("projects refused the inventory as malformed; the worker's logs name the cause.");
  if (code === Code.PermissionDenied || code === Code.Unauthenticated)
    return new JobInputError("projects did not accept the worker's credentials (SECRET_KEY differs between services).");
  return undefined;
}
