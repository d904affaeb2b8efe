// Writing a pull request's scan comment (docs/scm.md, "Pull-request comments"), shared by the route's
// PullRequestCommentService and the automatic comment of a pull-request webhook's scan (events/pull-request-comments.ts):
// what the scan brings over the base branch's newest snapshot and the gate's outcome, written on the pull request
// through the project's opted-in installation, and found again by its marker and updated on a rescan.
import type { EntityManager } from "@mikro-orm/postgresql";
import { ProblemError } from "@sca/problem";
import {
  baseRefs,
  commentBody,
  commentMarker,
  newFindings,
  newLicenseProblems,
  type CommentGate,
  type LicensedComponent,
  type ScanFinding,
} from "../domain/pull-request-comments.ts";
import { snapshotOfScan } from "../store/inventory/snapshots.ts";
import {
  forbiddenLicenseComponents,
  newestSnapshotOnRefs,
  scanFindings,
} from "../store/pull-request-comment-inputs.ts";
import { optedInRepository, remote, type OptedInDeps } from "./opted-in-repository.ts";

export interface PullRequestCommentOrder {
  projectId: string;
  scanId: string;
  pullRequestNumber: number;
  /** refs/heads/<base branch>, as the webhook recorded it. */
  baseRef: string;
  gate: CommentGate | null;
}

export interface WrittenPullRequestComment {
  commentId: number;
  action: "created" | "updated";
  baseScanId: string | null;
  findings: ScanFinding[];
  licenses: LicensedComponent[];
}

/** 409 not_opted_in without an installation, 409 scan_has_no_inventory before the scan's snapshot, 502 from the host. */
export async function writePullRequestComment(
  em: EntityManager,
  deps: OptedInDeps,
  order: PullRequestCommentOrder,
): Promise<WrittenPullRequestComment> {
  const { projectId, scanId, pullRequestNumber: number } = order;
  const repo = await optedInRepository(em, deps, projectId);
  if (!(await snapshotOfScan(em, projectId, scanId)))
    throw new ProblemError({
      status: 409,
      code: "scan_has_no_inventory",
      detail: "The scan has no inventory (it has not succeeded): there is nothing to comment yet.",
    });
  const baseScanId = await newestSnapshotOnRefs(em, projectId, baseRefs(order.baseRef), scanId);
  const findings = newFindings(await scanFindings(em, scanId), baseScanId ? await scanFindings(em, baseScanId) : []);
  const licenses = newLicenseProblems(
    await forbiddenLicenseComponents(em, scanId),
    baseScanId ? await forbiddenLicenseComponents(em, baseScanId) : [],
  );
  const body = commentBody({
    projectId,
    scanId,
    baseScanId,
    baseRef: order.baseRef,
    gate: order.gate,
    findings,
    licenses,
  });
  const marker = commentMarker(projectId);
  const existing = (await remote(() => repo.comments(number))).find((c) => c.body.startsWith(marker));
  let commentId: number;
  if (existing) {
    await remote(() => repo.updateComment(existing.id, body));
    commentId = existing.id;
  } else commentId = (await remote(() => repo.createComment(number, body))).id;
  return { commentId, action: existing ? "updated" : "created", baseScanId, findings, licenses };
}
