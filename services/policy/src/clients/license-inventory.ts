// The projects service's LicenseInventoryService, as obligations and the notice need it: a project's licenses
// summarised and its components' attributions streamed, both asked as the caller (re-signed for this hop), so
// projects decides who may read the project (hidden as NotFound otherwise).
import { createContextValues, type CallOptions, type Client } from "@connectrpc/connect";
import {
  LicenseInventoryService,
  type AttributionsHeader,
  type AttributedComponent,
  type SummariseProjectLicensesResponse,
} from "@sca/proto/sca/projects/v1/license_inventory_pb.ts";
import { callerTokenKey, createServiceClient, signCallerToken, type Caller } from "@sca/rpc";

export interface LicenseInventory {
  summarise(caller: Caller, projectId: string): Promise<SummariseProjectLicensesResponse>;
  /** The header (the first message; NotFound before it when there is no scan), then the components in chunks. */
  attributions(
    caller: Caller,
    projectId: string,
    signal: AbortSignal,
  ): Promise<{ header: AttributionsHeader; chunks: AsyncIterable<AttributedComponent[]> }>;
}

export function projectsLicenseInventory(url: string, secretKey: string): LicenseInventory {
  const client: Client<typeof LicenseInventoryService> = createServiceClient(LicenseInventoryService, url, {
    timeoutMs: 60_000,
  });
  const asCaller = async (caller: Caller, signal?: AbortSignal): Promise<CallOptions> => ({
    contextValues: createContextValues().set(callerTokenKey, await signCallerToken(caller, secretKey)),
    signal,
  });
  return {
    async summarise(caller, projectId) {
      return client.summariseProjectLicenses({ projectId }, await asCaller(caller));
    },
    async attributions(caller, projectId, signal) {
      const parts = client.exportAttributions({ projectId }, await asCaller(caller, signal))[Symbol.asyncIterator]();
      const first = await parts.next();
      if (first.done || first.value.part.case !== "header")
        throw new Error("the attribution export answered without its header");
      const header = first.value.part.value;
      async function* chunks(): AsyncGenerator<AttributedComponent[]> {
        try {
          for (let next = await parts.next(); !next.done; next = await parts.next())
            if (next.value.part.case === "chunk") yield next.value.part.value.components;
        } finally {
          await parts.return?.();
        }
      }
      return { header, chunks: chunks() };
    },
  };
}
