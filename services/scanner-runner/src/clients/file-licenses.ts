// projects' FileLicenseService, as the worker calls it: the scancode stage's outcome and detections of a scan,
// recorded on its own behalf (a `service` caller signed per call), with the job's signal.
import { createContextValues, type Client } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  FileLicenseService,
  type RecordFileLicensesRequestSchema,
} from "@sca/proto/sca/projects/v1/file_licenses_pb.ts";
import { callerTokenKey, createServiceClient, serviceCallerToken } from "@sca/rpc";

export interface FileLicenses {
  record(request: MessageInitShape<typeof RecordFileLicensesRequestSchema>, signal: AbortSignal): Promise<number>;
}

const RECORD_TIMEOUT_MS = 120_000;

export function projectsFileLicenses(url: string, secretKey: string): FileLicenses {
  const client: Client<typeof FileLicenseService> = createServiceClient(FileLicenseService, url, {
    timeoutMs: RECORD_TIMEOUT_MS,
  });
  return {
    async record(request, signal) {
      const token = await serviceCallerToken("scanner-runner", secretKey);
      const recorded = await client.recordFileLicenses(request, {
        signal,
        contextValues: createContextValues().set(callerTokenKey, token),
      });
      return recorded.detectionCount;
    },
  };
}
