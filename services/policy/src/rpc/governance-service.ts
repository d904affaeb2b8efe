// GovernanceService: policy's part of the governance band (docs/governance.md): how many approval requests of the
// project are still to decide. The project is asked of projects as the caller first, so an unreadable one is 404 as
// on every project read.
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { ProblemError } from "@sca/problem";
import { GetPendingApprovalsResponseSchema, GovernanceService } from "@sca/proto/sca/policy/v1/governance_pb.ts";
import { requireCaller } from "@sca/rpc";
import type { ProjectGateFacts } from "../clients/gate-facts.ts";
import { undecidedApprovals } from "../store/approvals.ts";
import { UUID } from "@sca/ids";

export interface GovernanceDeps {
  orm: MikroORM;
  projects: ProjectGateFacts;
}

export function registerGovernanceService(router: ConnectRouter, deps: GovernanceDeps): void {
  router.service(GovernanceService, {
    async getPendingApprovals(req, ctx) {
      const caller = requireCaller(ctx);
      if (!UUID.test(req.projectId)) throw ProblemError.notFound("No such project.");
      const subject = await deps.projects.subject(caller, req.projectId.toLowerCase());
      const counts = await undecidedApprovals(deps.orm.em.fork(), subject.projectId);
      return create(GetPendingApprovalsResponseSchema, { pending: counts.pending, underReview: counts.underReview });
    },
  });
}
