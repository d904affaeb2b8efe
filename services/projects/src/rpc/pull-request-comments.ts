// PullRequestCommentService (docs/scm.md, "Pull-request comments"): the route's comment of a pull request's scan,
// for a caller who may start scans of the project; pull-request-comment-writing.ts writes it.
import type { ConnectRouter } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import type { MikroORM } from "@mikro-orm/postgresql";
import { ProblemError } from "@sca/problem";
import {
  PostPullRequestCommentResponseSchema,
  PullRequestCommentService,
} from "@sca/proto/sca/projects/v1/pull_request_comments_pb.ts";
import { requireCaller } from "@sca/rpc";
import { mayArchive, mayRead } from "../domain/project-access.ts";
import { isUuid } from "../domain/project-fields.ts";
import { type OptedInDeps } from "./opted-in-repository.ts";
import { writePullRequestComment } from "./pull-request-comment-writing.ts";
import { enforce, readableProject } from "./project-lookup.ts";

export interface PullRequestCommentDeps extends OptedInDeps {
  orm: MikroORM;
}

export function registerPullRequestCommentService(router: ConnectRouter, deps: PullRequestCommentDeps): void {
  router.service(PullRequestCommentService, {
    async postPullRequestComment(req, ctx) {
      const caller = requireCaller(ctx);
      const project = await readableProject(deps, caller, req.projectId, mayRead);
      // As starting a scan: developer or above.
      enforce(mayArchive(caller, project), "Posting a scan's comment takes the developer role (or above) on the team.");
      const number = Number(req.pullRequestNumber);
      if (!Number.isSafeInteger(number) || number < 1)
        throw ProblemError.validation([{ path: "scan.metadata.pull_request_number", message: "must be a number" }]);
      if (!isUuid(req.scanId)) throw ProblemError.notFound("No such scan.");
      const written = await writePullRequestComment(deps.orm.em.fork(), deps, {
        projectId: project.id,
        scanId: req.scanId.toLowerCase(),
        pullRequestNumber: number,
        baseRef: req.baseRef,
        gate: req.gate
          ? { outcome: req.gate.outcome, judgedScanId: req.gate.judgedScanId ?? null, reasons: req.gate.reasons }
          : null,
      });
      return create(PostPullRequestCommentResponseSchema, {
        commentId: BigInt(written.commentId),
        action: written.action,
        ...(written.baseScanId ? { baseScanId: written.baseScanId } : {}),
        newFindings: written.findings,
        licenseProblems: written.licenses,
      });
    },
  });
}
