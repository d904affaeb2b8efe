// POST /v1/scans/{id}/post-pr-comment (docs/scm.md, "Pull-request comments"): the scan's pull request (its metadata
// pull_request_number and base_ref, as a pull-request webhook records them) gets one comment with what the scan
// brings over the base branch's latest scan and the gate's outcome; PullRequestCommentService writes it.
import { ProblemError } from "@sca/problem";
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

const commentSchema = z
  .object({
    scan_id: z.uuid(),
    project_id: z.uuid(),
    pull_request_number: z.number().int(),
    comment_id: z.number().int(),
    action: z.enum(["created", "updated"]),
    base_ref: z.string(),
    base_scan_id: z.uuid().nullable().meta({ description: "The base branch's scan compared with; null: none" }),
    gate_outcome: z.string().meta({ description: "pass, fail or no_scan" }),
    new_findings: z.array(
      z.object({ vulnerability_id: z.string(), severity: z.string(), package: z.string(), version: z.string() }),
    ),
    license_problems: z.array(
      z.object({ package: z.string(), version: z.string(), license: z.string(), category: z.string() }),
    ),
  })
  .meta({ id: "PullRequestComment" });

export function pullRequestCommentRoutes(ctx: GatewayContext): Route[] {
  const scans = ctx.clients["scan-orchestrator"].scans;
  const comments = ctx.clients.projects.pullRequestComments;
  const gate = ctx.clients.policy.gatePolicies;
  return [
    defineRoute({
      method: "post",
      path: "/v1/scans/{id}/post-pr-comment",
      summary: "Comment a pull request's scan on the pull request",
      description:
        "developer+ on the project's team. For a scan of a pull request (metadata pull_request_number, base_ref): " +
        "one comment on the pull request, through the project's opted-in app installation, with the new " +
        "vulnerabilities and forbidden licenses compared with the base branch's latest scan and the gate's " +
        "outcome; a later call updates the same comment.",
      tags: ["Remediation"],
      operationId: "postPullRequestComment",
      auth: ctx.auth.route("caller"),
      request: { params: z.object({ id: z.uuid() }) },
      responses: {
        200: { description: "The comment written", schema: commentSchema },
        401: problemResponse("No valid credential"),
        403: problemResponse("Below developer on the project's team"),
        404: problemResponse("No such scan"),
        409: problemResponse("Not opted in (not_opted_in), or the scan has no inventory (scan_has_no_inventory)"),
        422: problemResponse("The scan is not of a pull request"),
        502: problemResponse("The source host refused a write (remote_write_failed; its status only)"),
      },
      handler: async ({ params, call }) => {
        const { scan } = await scans.getScan({ scanId: params.id }, call);
        const metadata = scan!.metadata ?? {};
        const number = metadata.pull_request_number;
        const baseRef = metadata.base_ref;
        if (typeof number !== "number" || typeof baseRef !== "string")
          throw ProblemError.validation([
            { path: "scan.metadata", message: "the scan is not of a pull request (no pull_request_number, base_ref)" },
          ]);
        const judged = (await gate.getGateResult({ projectId: scan!.projectId }, call)).result!;
        const answer = await comments.postPullRequestComment(
          {
            projectId: scan!.projectId,
            scanId: scan!.id,
            pullRequestNumber: BigInt(number),
            baseRef,
            gate: {
              outcome: judged.outcome,
              ...(judged.scanId === undefined ? {} : { judgedScanId: judged.scanId }),
              reasons: judged.reasons.map((r) => r.message),
            },
          },
          call,
        );
        return {
          status: 200,
          body: {
            scan_id: scan!.id,
            project_id: scan!.projectId,
            pull_request_number: number,
            comment_id: Number(answer.commentId),
            action: answer.action as "created" | "updated",
            base_ref: baseRef,
            base_scan_id: answer.baseScanId ?? null,
            gate_outcome: judged.outcome,
            new_findings: answer.newFindings.map((f) => ({
              vulnerability_id: f.vulnerabilityId,
              severity: f.severity,
              package: f.package,
              version: f.version,
            })),
            license_problems: answer.licenseProblems.map((l) => ({
              package: l.package,
              version: l.version,
              license: l.license,
              category: l.category,
            })),
          },
        };
      },
    }),
  ];
}
