// The automatic pull-request comment (docs/scm.md, "Pull-request comments"): projects' consumer of the
// scan-orchestrator's ScanStateChanged (group projects.pull-request-comments, each event applied once by the
// idempotent consumer, so a redelivery posts nothing twice). A scan a pull-request webhook started that succeeded
// gets the comment the route would write, with the gate policy answers for the project, on a project opted in.
import { Code, ConnectError } from "@connectrpc/connect";
import type { EntityManager } from "@mikro-orm/postgresql";
import { topicContract, TOPICS, type EventMeta } from "@sca/kafka";
import type { Logger } from "@sca/log";
import { ProblemError } from "@sca/problem";
import { ScanStateChangedSchema, type ScanStateChanged } from "@sca/proto/sca/events/v1/scans_pb.ts";
import type { GateResults } from "../clients/gate-results.ts";
import { isUuid } from "../domain/project-fields.ts";
import { automaticCommentOf } from "../domain/pull-request-comments.ts";
import { hostMayAnswerLater } from "../domain/source-host-failures.ts";
import type { OptedInDeps } from "../rpc/opted-in-repository.ts";
import { writePullRequestComment } from "../rpc/pull-request-comment-writing.ts";
import { optedInInstallation } from "../store/source-host-apps.ts";

export const PULL_REQUEST_COMMENT_GROUP = "projects.pull-request-comments";

export const scanStateNews = topicContract(TOPICS.domainEvents, ScanStateChangedSchema);

export interface AutomaticCommentDeps extends OptedInDeps {
  gate: GateResults;
  logger: Logger;
}

/**
 * Whether the news calls for a comment (the group's `acts`): every other scan's news, and a pull request's scan
 * before it succeeds, is passed by before any database work.
 */
export const callsForComment = (event: ScanStateChanged): boolean => automaticCommentOf(event) !== null;

export function pullRequestCommentHandler(deps: AutomaticCommentDeps) {
  return async (em: EntityManager, event: ScanStateChanged, meta: EventMeta): Promise<void> => {
    if (!isUuid(event.scanId) || !isUuid(event.projectId)) return;
    const order = automaticCommentOf(event);
    if (!order) return;
    const log = { eventId: meta.eventId, scanId: order.scanId, pullRequest: order.pullRequestNumber };
    // A project not opted in is the common case: nothing to write, and policy is not asked.
    if (!(await optedInInstallation(em, order.projectId))) return;
    let gate;
    try {
      gate = await deps.gate.judge(order.projectId);
    } catch (err) {
      // The project is gone (or never reached policy's reader): nothing to comment.
      if (ConnectError.from(err).code === Code.NotFound) return;
      throw err;
    }
    try {
      const written = await writePullRequestComment(em, deps, { ...order, gate });
      deps.logger.info({ ...log, commentId: written.commentId, action: written.action }, "pull request commented");
    } catch (err) {
      if (!(err instanceof ProblemError)) throw err;
      const remoteStatus = err.init.extensions?.remote_status as number | null | undefined;
      if (err.init.code === "remote_write_failed" && hostMayAnswerLater(remoteStatus ?? null)) throw err;
      // Unlinked meanwhile, no inventory, or a refusal the host would repeat: given up (the route may still post it).
      deps.logger.warn({ ...log, code: err.init.code, remoteStatus }, "pull request not commented");
    }
  };
}
