// The npm remediation pull request and its list (RemediationService; docs/scm.md, "Remediation pull requests"). The
// target is the project's opted-in installation only; the record is written `creating` before the host is touched,
// and each remote step is idempotent (an existing branch, an already edited file, an open PR from the branch are
// taken as they are), so a creating record left by a crash is finished by the next request for the same bumps
// without a second branch or PR, or else settled by events/remediation-reconciliation.ts.
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { NUMBERED_PAGE_SIZE, pageOf } from "@sca/paging";
import { ProblemError } from "@sca/problem";
import {
  ListRemediationPullRequestsResponseSchema,
  NpmPullRequestResponseSchema,
  RemediationPullRequestSchema,
  type ListRemediationPullRequestsRequest,
  type NpmPullRequestRequest,
} from "@sca/proto/sca/projects/v1/remediation_pb.ts";
import { isSuperAdmin, requireCaller } from "@sca/rpc";
import type { HandlerContext } from "@connectrpc/connect";
import { SourceHostError, type RepositoryApi } from "../clients/source-host.ts";
import { editManifest, npmRecommendations } from "../domain/npm-remediation.ts";
import { mayRead, mayUpdate, roleOnTeam } from "../domain/project-access.ts";
import {
  bumpFingerprint,
  bumpsOf,
  commitMessage,
  pullRequestBody,
  pullRequestTitle,
  remediationBranch,
} from "../domain/remediation-pull-requests.ts";
import type { PullRequestState, RemediationPullRequestRow } from "../store/entities/source-host.ts";
import { newestSnapshot } from "../store/inventory/snapshots.ts";
import { vulnerableNpmPackages } from "../store/remediation-inputs.ts";
import {
  insertRemediation,
  liveRemediation,
  remediationsOf,
  updateRemediation,
} from "../store/remediation-pull-requests.ts";
import { optedInRepository, remote, remoteFailed, type OptedInDeps } from "./opted-in-repository.ts";
import { enforce, readableProject } from "./project-lookup.ts";

export interface RemediationPullRequestDeps extends OptedInDeps {
  orm: MikroORM;
  /** <service_name> of the remediation branches. */
  serviceName: string;
}

const MANIFEST_PATH = "package.json";

export function remediationMessage(row: RemediationPullRequestRow) {
  return create(RemediationPullRequestSchema, {
    id: row.id,
    projectId: row.projectId,
    ecosystem: row.ecosystem,
    repositoryFullName: row.repositoryFullName,
    headBranch: row.headBranch,
    baseBranch: row.baseBranch,
    ...(row.prNumber === null ? {} : { prNumber: BigInt(row.prNumber) }),
    ...(row.prUrl === null ? {} : { prUrl: row.prUrl }),
    ...(row.prState === null ? {} : { prState: row.prState }),
    status: row.status,
    packageChanges: row.packageChanges,
    createdAt: timestampFromDate(row.createdAt),
    updatedAt: timestampFromDate(row.updatedAt),
  });
}

/**
 * The page's records whose pull request was open when last read, read again from the host (and kept). Best effort: a
 * project no longer opted in, or a host that fails, leaves the last state known.
 */
async function withHostStates(
  em: EntityManager,
  deps: OptedInDeps,
  projectId: string,
  rows: RemediationPullRequestRow[],
): Promise<RemediationPullRequestRow[]> {
  const stale = rows.filter((r) => r.prNumber !== null && r.prState === "open");
  if (stale.length === 0) return rows;
  let repo: RepositoryApi;
  try {
    repo = await optedInRepository(em, deps, projectId);
  } catch {
    return rows;
  }
  const states = new Map<string, PullRequestState>();
  for (const row of stale) {
    if (row.repositoryFullName !== repo.fullName) continue;
    try {
      const state = await repo.pullRequestState(row.prNumber!);
      if (state === "open") continue;
      await updateRemediation(em, row.id, { prState: state }, new Date());
      states.set(row.id, state);
    } catch (err) {
      if (!(err instanceof SourceHostError)) throw err;
    }
  }
  return rows.map((r) => (states.has(r.id) ? { ...r, prState: states.get(r.id)! } : r));
}

const unusable = (detail: string) => ProblemError.validation([{ path: "body.manifest", message: detail }]);

export function remediationPullRequestHandlers(deps: RemediationPullRequestDeps) {
  return {
    async npmPullRequest(req: NpmPullRequestRequest, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      const project = await readableProject(deps, caller, req.projectId, mayRead);
      enforce(
        mayUpdate(caller, project),
        "A remediation pull request takes the team_admin role on the project's team.",
      );
      const em = deps.orm.em.fork();
      // Opted in before anything else is read: 409 comes first.
      const repo = await optedInRepository(em, deps, project.id);
      const nothing = () => create(NpmPullRequestResponseSchema, { outcome: "nothing" });
      const snapshot = await newestSnapshot(em, project.id);
      const recommendations = snapshot ? npmRecommendations(await vulnerableNpmPackages(em, snapshot.scanId)) : [];
      if (recommendations.length === 0) return nothing();

      const fullName = repo.fullName;
      const base = await remote(() => repo.defaultBranch());
      if (base === null) throw unusable(`The repository ${fullName} cannot be read through the installation.`);
      const file = await remote(() => repo.file(MANIFEST_PATH, base));
      if (!file) throw unusable(`The repository ${fullName} has no ${MANIFEST_PATH} on ${base}.`);
      const edit = editManifest(req.manifest ?? file.text, recommendations);
      if (!edit.ok) throw unusable(edit.detail);
      const bumps = bumpsOf(recommendations, edit.changes);
      if (!edit.changed || bumps.length === 0) return nothing();

      const fingerprint = bumpFingerprint(bumps);
      const held = await liveRemediation(em, project.id, fingerprint);
      if (held?.status === "open")
        return create(NpmPullRequestResponseSchema, { outcome: "existing", pullRequest: remediationMessage(held) });
      const now = new Date();
      let record: RemediationPullRequestRow = held ?? {
        id: randomUUID(),
        projectId: project.id,
        ecosystem: "npm",
        repositoryFullName: fullName,
        headBranch: remediationBranch(deps.serviceName, fingerprint),
        baseBranch: base,
        prNumber: null,
        prUrl: null,
        prState: null,
        status: "creating",
        packageChanges: bumps,
        fingerprint,
        failureStatus: null,
        createdAt: now,
        updatedAt: now,
      };
      if (!held && !(await insertRemediation(em, record))) {
        // Another request for the same bumps got there first: its record is the answer.
        const winner = await liveRemediation(em, project.id, fingerprint);
        if (winner)
          return create(NpmPullRequestResponseSchema, { outcome: "existing", pullRequest: remediationMessage(winner) });
        throw new ProblemError({ status: 409, detail: "A concurrent request changed this remediation; try again." });
      }

      try {
        const made = await repo.createBranch(record.headBranch, record.baseBranch);
        // A branch left by an interrupted attempt may already hold the edit.
        const onBranch = made ? file : await repo.file(MANIFEST_PATH, record.headBranch);
        if (!onBranch) throw new SourceHostError(404, `read ${MANIFEST_PATH} on ${record.headBranch}`);
        if (onBranch.text !== edit.edited)
          await repo.updateFile(MANIFEST_PATH, {
            branch: record.headBranch,
            text: edit.edited,
            sha: onBranch.sha,
            message: commitMessage(bumps),
          });
        const pr =
          (await repo.openPullRequestFrom(record.headBranch)) ??
          (await repo.createPullRequest({
            title: pullRequestTitle(bumps),
            body: pullRequestBody(bumps),
            head: record.headBranch,
            base: record.baseBranch,
          }));
        const at = new Date();
        const opened = { status: "open" as const, prNumber: pr.number, prUrl: pr.url, prState: "open" as const };
        await updateRemediation(em, record.id, opened, at);
        record = { ...record, ...opened, updatedAt: at };
      } catch (err) {
        if (!(err instanceof SourceHostError)) throw err;
        await updateRemediation(em, record.id, { status: "failed", failureStatus: err.status }, new Date());
        throw remoteFailed(err);
      }
      return create(NpmPullRequestResponseSchema, { outcome: "created", pullRequest: remediationMessage(record) });
    },

    async listRemediationPullRequests(req: ListRemediationPullRequestsRequest, ctx: HandlerContext) {
      const caller = requireCaller(ctx);
      const project = await readableProject(deps, caller, req.projectId, mayRead);
      // The spec's "any team member": a reader through the organization's visibility is not one.
      if (!isSuperAdmin(caller) && roleOnTeam(caller, project.teamId) === null)
        throw ProblemError.forbidden("The remediation pull requests are shown to the project's team.");
      const page = pageOf({ page: req.page, pageSize: req.pageSize }, NUMBERED_PAGE_SIZE);
      const em = deps.orm.em.fork();
      const { items, total } = await remediationsOf(em, project.id, page);
      return create(ListRemediationPullRequestsResponseSchema, {
        items: (await withHostStates(em, deps, project.id, items)).map(remediationMessage),
        total: BigInt(total),
      });
    },
  };
}
