// PullRequestCommentService (docs/scm.md, "Pull-request comments"): the comment of a pull request's scan, written on
// the pull request through the project's opted-in installation; found again by its marker and updated on a rescan.
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
import {
  baseRefs,
  commentBody,
  commentMarker,
  newFindings,
  newLicenseProblems,
} from "../domain/pull-request-comments.ts";
import { snapshotOfScan } from "../store/inventory/snapshots.ts";
import {
  forbiddenLicenseComponents,
  newestSnapshotOnRefs,
  scanFindings,
} from "../store/pull-request-comment-inputs.ts";
import { optedInRepository, remote, type OptedInDeps } from "./opted-in-repository.ts";
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
      const em = deps.orm.em.fork();
      const repo = await optedInRepository(em, deps, project.id);
      const scanId = req.scanId.toLowerCase();
      if (!(await snapshotOfScan(em, project.id, scanId)))
        throw new ProblemError({
          status: 409,
          code: "scan_has_no_inventory",
          detail: "The scan has no inventory (it has not succeeded): there is nothing to comment yet.",
        });
      const baseScanId = await newestSnapshotOnRefs(em, project.id, baseRefs(req.baseRef), scanId);
      const findings = newFindings(
        await scanFindings(em, scanId),
        baseScanId ? await scanFindings(em, baseScanId) : [],
      );
      const licenses = newLicenseProblems(
        await forbiddenLicenseComponents(em, scanId),
        baseScanId ? await forbiddenLicenseComponents(em, baseScanId) : [],
      );
      const body = commentBody({
        projectId: project.id,
        scanId,
        baseScanId,
        baseRef: req.baseRef,
        gate: req.gate
          ? { outcome: req.gate.outcome, judgedScanId: req.gate.judgedScanId ?? null, reasons: req.gate.reasons }
          : null,
        findings,
        licenses,
      });
      const marker = commentMarker(project.id);
      const existing = (await remote(() => repo.comments(number))).find((c) => c.body.startsWith(marker));
      let commentId: number;
      if (existing) {
        await remote(() => repo.updateComment(existing.id, body));
        commentId = existing.id;
      } else commentId = (await remote(() => repo.createComment(number, body))).id;
      return create(PostPullRequestCommentResponseSchema, {
        commentId: BigInt(commentId),
        action: existing ? "updated" : "created",
        ...(baseScanId ? { baseScanId } : {}),
        newFindings: findings,
        licenseProblems: licenses,
      });
    },
  });
}
