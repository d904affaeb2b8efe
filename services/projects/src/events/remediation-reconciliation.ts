// Reconciling remediation pull request records left `creating` (docs/scm.md, "Remediation pull requests"): the
// record is written before the host is touched, so a crash between leaves it `creating`. At start-up and then
// periodically, each one untouched past the bound is settled against the host: its pull request opened before the
// crash makes it `open`, none makes it `failed` (the next request reuses what the attempt left), a host that may
// answer later leaves it for the next run. Settling is conditional on `creating`, so a request finishing the same
// record meanwhile wins.
import type { MikroORM } from "@mikro-orm/postgresql";
import { SourceHostError } from "../clients/source-host.ts";
import {
  abandonedCreatingBefore,
  creatingSettlement,
  type CreatingRecordOnHost,
} from "../domain/remediation-pull-requests.ts";
import { hostMayAnswerLater } from "../domain/source-host-failures.ts";
import type { RemediationPullRequestRow } from "../store/entities/source-host.ts";
import { abandonedCreating, settleCreating } from "../store/remediation-pull-requests.ts";
import { installedRepository, type OptedInDeps } from "../rpc/opted-in-repository.ts";

/** Records looked at per run; the rest wait for the next one. */
const BATCH = 200;

export interface Reconciled {
  opened: number;
  failed: number;
  left: number;
}

async function onHost(orm: MikroORM, deps: OptedInDeps, row: RemediationPullRequestRow): Promise<CreatingRecordOnHost> {
  try {
    const repo = await installedRepository(orm.em.fork(), deps, row.projectId);
    if (!repo || repo.fullName.toLowerCase() !== row.repositoryFullName.toLowerCase()) return { kind: "not_reachable" };
    const pr = await repo.openPullRequestFrom(row.headBranch);
    return pr ? { kind: "open_pull_request", number: pr.number, url: pr.url } : { kind: "no_pull_request" };
  } catch (err) {
    if (!(err instanceof SourceHostError)) throw err;
    return { kind: "host_failed", status: err.status, mayAnswerLater: hostMayAnswerLater(err.status) };
  }
}

/** One run at `now`. */
export async function reconcileCreatingRemediations(
  orm: MikroORM,
  deps: OptedInDeps,
  now: Date,
  signal: AbortSignal,
): Promise<Reconciled> {
  const done: Reconciled = { opened: 0, failed: 0, left: 0 };
  for (const row of await abandonedCreating(orm.em.fork(), abandonedCreatingBefore(now), BATCH)) {
    if (signal.aborted) break;
    const settlement = creatingSettlement(await onHost(orm, deps, row));
    if (!settlement) {
      done.left++;
      continue;
    }
    if (!(await settleCreating(orm.em.fork(), row.id, settlement, new Date()))) continue;
    if (settlement.status === "open") done.opened++;
    else done.failed++;
  }
  return done;
}
