// projects' ComponentStateService, as the worker calls it: RecordComponentStates on its own behalf (a `service`
// caller signed per call), with the job's signal.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { createContextValues, type Client } from "@connectrpc/connect";
import {
  ComponentStateService,
  type RecordComponentStatesRequestSchema,
} from "@sca/proto/sca/projects/v1/component_states_pb.ts";
import { callerTokenKey, createServiceClient, serviceCallerToken } from "@sca/rpc";

export interface ComponentStates {
  record(
    request: MessageInitShape<typeof RecordComponentStatesRequestSchema>,
    signal: AbortSignal,
  ): Promise<{ updated: number }>;
}

const RECORD_TIMEOUT_MS = 120_000;

export function projectsComponentStates(url: string, secretKey: string): ComponentStates {
  const client: Client<typeof ComponentStateService> = createServiceClient(ComponentStateService, url, {
    timeoutMs: RECORD_TIMEOUT_MS,
  });
  return {
    async record(request, signal) {
      const token = await serviceCallerToken("scanner-runner", secretKey);
      return await client.recordComponentStates(request, {
        signal,
        contextValues: createContextValues().set(callerTokenKey, token),
      });
    },
  };
}
