// projects' GetCloneSource, as the worker calls it: the project's git_url, default branch and unsealed credential
// for a source scan's clone, on the worker's own behalf (a `service` caller signed per call).
import { Code, ConnectError, createContextValues, type Client } from "@connectrpc/connect";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { callerTokenKey, createServiceClient, serviceCallerToken } from "@sca/rpc";
import { JobInputError } from "../domain/scan-job.ts";
import type { CloneSource } from "../fetch/git-clone.ts";

export interface CloneSources {
  of(projectId: string, signal: AbortSignal): Promise<CloneSource>;
}

export function projectsCloneSources(url: string, secretKey: string): CloneSources {
  const client: Client<typeof InventoryService> = createServiceClient(InventoryService, url, { timeoutMs: 30_000 });
  return {
    async of(projectId, signal) {
      const token = await serviceCallerToken("scanner-runner", secretKey);
      try {
        const answer = await client.getCloneSource(
          { projectId },
          { signal, contextValues: createContextValues().set(callerTokenKey, token) },
        );
        return { gitUrl: answer.gitUrl, defaultBranch: answer.defaultBranch, credential: answer.gitCredential };
      } catch (err) {
        signal.throwIfAborted();
        if (ConnectError.from(err).code === Code.NotFound)
          throw new JobInputError("The project no longer exists; there is nothing to clone.");
        throw err;
      }
    },
  };
}
