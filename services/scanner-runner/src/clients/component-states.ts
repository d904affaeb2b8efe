// projects' ComponentStateService, as the runner calls it on its own behalf (a `service` caller signed per call):
// RecordComponentStates and RecordFetchedLicenses (docs/license-fetch.md) for a scan's job, and after an end-of-life or malicious snapshot refresh ListHeldPurls,
// RestampComponentStates and CountComponentStates (docs/enrichment-feeds.md, "Re-stamping after a snapshot refresh").
import type { MessageInitShape } from "@bufbuild/protobuf";
import { createContextValues, type Client } from "@connectrpc/connect";
import {
  ComponentStateService,
  type CountComponentStatesResponse,
  type RecordComponentStatesRequestSchema,
  type RecordFetchedLicensesRequestSchema,
  type RestampComponentStatesRequestSchema,
  type RestampComponentStatesResponse,
} from "@sca/proto/sca/projects/v1/component_states_pb.ts";
import { callerTokenKey, createServiceClient, serviceCallerToken } from "@sca/rpc";

export interface ComponentStates {
  record(
    request: MessageInitShape<typeof RecordComponentStatesRequestSchema>,
    signal: AbortSignal,
  ): Promise<{ updated: number }>;
  recordFetchedLicenses(
    request: MessageInitShape<typeof RecordFetchedLicensesRequestSchema>,
    signal: AbortSignal,
  ): Promise<{ updated: number }>;
  listHeldPurls(signal: AbortSignal): AsyncIterable<string[]>;
  restamp(
    request: MessageInitShape<typeof RestampComponentStatesRequestSchema>,
    signal: AbortSignal,
  ): Promise<RestampComponentStatesResponse>;
  count(signal: AbortSignal): Promise<CountComponentStatesResponse>;
}

const RECORD_TIMEOUT_MS = 120_000;

export function projectsComponentStates(url: string, secretKey: string): ComponentStates {
  const client: Client<typeof ComponentStateService> = createServiceClient(ComponentStateService, url, {
    timeoutMs: RECORD_TIMEOUT_MS,
  });
  const options = async (signal: AbortSignal) => ({
    signal,
    contextValues: createContextValues().set(callerTokenKey, await serviceCallerToken("scanner-runner", secretKey)),
  });
  return {
    async record(request, signal) {
      return await client.recordComponentStates(request, await options(signal));
    },
    async recordFetchedLicenses(request, signal) {
      return await client.recordFetchedLicenses(request, await options(signal));
    },
    async *listHeldPurls(signal) {
      for await (const chunk of client.listHeldPurls({}, await options(signal))) yield chunk.purls;
    },
    async restamp(request, signal) {
      return await client.restampComponentStates(request, await options(signal));
    },
    async count(signal) {
      return await client.countComponentStates({}, await options(signal));
    },
  };
}
