// Policy's GatePolicyService.GetGateResult, as the automatic pull-request comment needs it: the gate's outcome for a
// project, as GET /v1/projects/{id}/gate-result answers it. Called as the projects service (no person behind the
// comment of a webhook's scan); projects' GateFactsService lets this caller read any project. And its
// JudgeGateFigures, as the dashboards' daily rows need it: the outcome of kept figures under each team's policy.
import { createContextValues, type Client } from "@connectrpc/connect";
import { GatePolicyService } from "@sca/proto/sca/policy/v1/gate_policies_pb.ts";
import { callerTokenKey, createServiceClient, serviceCallerToken } from "@sca/rpc";
import type { CommentGate } from "../domain/pull-request-comments.ts";
import type { GateFiguresRow } from "../store/portfolio/figures.ts";

export interface GateResults {
  /** The gate's verdict on the project's latest succeeded scan, as the comment names it. */
  judge(projectId: string): Promise<CommentGate>;
  /** Each project's gate outcome ("pass", "fail") from its kept figures, by its team's and organization's policy. */
  judgeFigures(figures: readonly GateFiguresRow[]): Promise<{ projectId: string; outcome: string }[]>;
}

export function policyGateResults(url: string, secretKey: string): GateResults {
  const client: Client<typeof GatePolicyService> = createServiceClient(GatePolicyService, url, { timeoutMs: 30_000 });
  const asProjects = async () => ({
    contextValues: createContextValues().set(callerTokenKey, await serviceCallerToken("projects", secretKey)),
  });
  return {
    async judge(projectId) {
      const { result } = await client.getGateResult({ projectId }, await asProjects());
      return {
        outcome: result!.outcome,
        judgedScanId: result!.scanId ?? null,
        reasons: result!.reasons.map((r) => r.message),
      };
    },
    async judgeFigures(figures) {
      const { projects } = await client.judgeGateFigures(
        {
          projects: figures.map((f) => ({
            projectId: f.projectId,
            teamId: f.teamId,
            ...(f.organizationId ? { organizationId: f.organizationId } : {}),
            scanned: true,
            openFindingCount: f.openFindings,
            criticalCount: f.critical,
            forbiddenLicenseCount: f.licenseForbidden,
            maliciousCount: f.malicious,
            epssScoredCount: f.epssScored,
            ...(f.epssMax === null ? {} : { epssMax: f.epssMax }),
          })),
        },
        await asProjects(),
      );
      return projects.map((p) => ({ projectId: p.projectId, outcome: p.outcome }));
    },
  };
}
