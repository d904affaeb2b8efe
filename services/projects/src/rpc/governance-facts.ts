// GovernanceFactsService: projects' part of the governance band (docs/governance.md): scanned or not, the overview's
// risk score of the newest snapshot, the KEV due-date state of its open findings, the trend over the recent
// snapshots and the findings awaiting a second person. As the caller behind the band: an unreadable project is 404.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import {
  GetGovernanceFactsResponseSchema,
  GovernanceFactsService,
  KevSlaSchema,
  TrendSchema,
} from "@sca/proto/sca/projects/v1/governance_facts_pb.ts";
import { requireCaller } from "@sca/rpc";
import { isoDay, KEV_DUE_SOON_DAYS, kevSlaState, TREND_SNAPSHOTS, trendDirection } from "../domain/governance.ts";
import { mayRead } from "../domain/project-access.ts";
import { overviewFigures } from "../domain/project-overview.ts";
import { isUuid } from "../domain/project-fields.ts";
import type { KeptFindingReads } from "../store/findings/finding-orders.ts";
import { kevDueDates, openFindingsBySeverity, pendingConfirmations } from "../store/findings/governance.ts";
import { findingListWrites, projectWithNewestSnapshot, recentSnapshots } from "../store/inventory/snapshots.ts";
import { componentGroups } from "../store/inventory/summary.ts";
import { projectNotFound } from "./readable-inventory.ts";

export interface GovernanceFactsDeps {
  orm: MikroORM;
  /** The counts of a snapshot's findings kept under its count of writes (FINDING_READ_CACHE_MB). */
  findingReads: KeptFindingReads;
}

export function registerGovernanceFactsService(router: ConnectRouter, deps: GovernanceFactsDeps): void {
  router.service(GovernanceFactsService, {
    async getGovernanceFacts(req, ctx) {
      const caller = requireCaller(ctx);
      if (!isUuid(req.projectId)) throw projectNotFound();
      const em = deps.orm.em.fork();
      const found = await projectWithNewestSnapshot(em, req.projectId.toLowerCase());
      if (!found || !mayRead(caller, found.project)) throw projectNotFound();
      const projectId = found.project.id;
      const snapshots = (await recentSnapshots(em, projectId, TREND_SNAPSHOTS)).reverse();
      const newest = snapshots.at(-1);
      if (!newest)
        return create(GetGovernanceFactsResponseSchema, {
          projectId,
          scanned: false,
          riskScore: 0,
          kevSla: create(KevSlaSchema, { state: "none" }),
          trend: create(TrendSchema, { direction: "unknown", points: [] }),
        });
      // Each snapshot's counts are kept under its count of writes: counted again only after a write.
      const writes = await findingListWrites(
        em,
        projectId,
        snapshots.map((s) => s.scanId),
      );
      const source = (scanId: string) => ({ scanId, changes: writes.get(scanId)! });
      const counts: Awaited<ReturnType<typeof openFindingsBySeverity>> = [];
      for (const s of snapshots)
        counts.push(
          ...(await deps.findingReads.read(source(s.scanId), "open findings by severity", () =>
            openFindingsBySeverity(em, [s.scanId]),
          )),
        );
      const points = [];
      for (const s of snapshots) {
        const bySeverity = (severity: string) =>
          counts.find((c) => c.scanId === s.scanId && c.severity === severity)?.count ?? 0;
        const open = counts.filter((c) => c.scanId === s.scanId).reduce((sum, c) => sum + c.count, 0);
        points.push({
          scanId: s.scanId,
          scannedAt: timestampFromDate(s.ingestedAt),
          riskScore: overviewFigures(await componentGroups(em, s.scanId)).riskScore,
          openFindings: open,
          critical: bySeverity("critical"),
          high: bySeverity("high"),
          medium: bySeverity("medium"),
          low: bySeverity("low"),
        });
      }
      const now = new Date();
      const [today, dueSoonBy] = [isoDay(now), isoDay(now, KEV_DUE_SOON_DAYS)];
      const kev = await deps.findingReads.read(source(newest.scanId), ["KEV due dates", today, dueSoonBy], () =>
        kevDueDates(em, newest.scanId, today, dueSoonBy),
      );
      const pending = await deps.findingReads.read(source(newest.scanId), "pending confirmations", async () => ({
        count: await pendingConfirmations(em, newest.scanId),
      }));
      return create(GetGovernanceFactsResponseSchema, {
        projectId,
        scanned: true,
        scanId: newest.scanId,
        scannedAt: timestampFromDate(newest.ingestedAt),
        riskScore: points.at(-1)!.riskScore,
        kevSla: create(KevSlaSchema, {
          state: kevSlaState(kev),
          openCount: kev.open,
          overdueCount: kev.overdue,
          dueSoonCount: kev.dueSoon,
          withoutDueDateCount: kev.withoutDueDate,
          nextDueDate: kev.nextDueDate ?? "",
          oldestOverdueDate: kev.oldestOverdueDate ?? "",
        }),
        trend: create(TrendSchema, { direction: trendDirection(points), points }),
        pendingStatusConfirmations: pending.count,
      });
    },
  });
}
