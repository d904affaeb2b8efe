// Policy's GatePolicyService.GetGateResult, as the automatic pull-request comment needs it: the gate's outcome for a
// project, as GET /v1/projects/{id}/gate-result answers it. Called as the projects service (no person behind the
// comment of a webhook's scan); projects' GateFactsService lets this caller read any project.
import { createContextValues, type Client } from "@connectrpc/connect";
import { GatePolicyService } from "@sca/proto/sca/policy/v1/gate_policies_pb.ts";
import { callerTokenKey, createServiceClient, serviceCallerToken } from "@sca/rpc";
import type { CommentGate } from "../domain/pull-request-comments.ts";

export interface GateResults {
  /** The gate's verdict on the project's latest succeeded scan, as the comment names it. */
  judge(projectId: string): Promise<CommentGate>;
}

export function policyGateResults(url: string, secretKey: string): GateResults {
  const client: Client<typeof GatePolicyService> = createServiceClient(GatePolicyService, url, { timeoutMs: 30_000 });
  return {
    async judge(projectId) {
      const token = await serviceCallerToken("projects", secretKey);
      const { result } = await client.getGateResult(
        { projectId },
        { contextValues: createContextValues().set(callerTokenKey, token) },
      );
      return {
        outcome: result!.outcome,
        judgedScanId: result!.scanId ?? null,
        reasons: result!.reasons.map((r) => r.message),
      };
    },
  };
}
