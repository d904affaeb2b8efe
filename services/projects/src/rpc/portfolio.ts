// PortfolioService (docs/dashboards.md): reads across the projects a caller may read. The component and license
// finding details follow the project read rule (domain/project-access.ts; 404 when nothing is readable); the
// dashboards read the kept figures of the caller's reach (domain/dashboards.ts); the search walks each readable
// project's newest snapshot.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { SNAPSHOT } from "@sca/db";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  ComponentHoldingSchema,
  GetActionQueueResponseSchema,
  GetLicenseFindingResponseSchema,
  GetPortfolioComponentResponseSchema,
  GetPortfolioOverviewResponseSchema,
  GetTrendsResponseSchema,
  HoldingVulnerabilitySchema,
  LicenseCategoryCountsSchema,
  ListTeamsByRiskResponseSchema,
  PortfolioService,
  QueuedProjectSchema,
  RecentScanSchema,
  SearchHitSchema,
  SearchPortfolioResponseSchema,
  SeverityCountsSchema,
  TeamRiskSchema,
  TrendBucketSchema,
} from "@sca/proto/sca/projects/v1/portfolio_pb.ts";
import { requireCaller } from "@sca/rpc";
import type { Directory } from "../clients/directory.ts";
import {
  bucketStarts,
  dashboardReach,
  isoDate,
  measuredDays,
  queueLimitOf,
  reachName,
  STALE_AFTER_DAYS,
  TEAMS_BY_RISK_CAP,
  trendRequestOf,
} from "../domain/dashboards.ts";
import { componentInRange, type PortfolioQuery, SEARCH_EXPORT_MAX, searchOf } from "../domain/portfolio-search.ts";
import { listScope, mayRead, type ListScope } from "../domain/project-access.ts";
import { isUuid } from "../domain/project-fields.ts";
import { InventoryComponent } from "../store/entities/inventory.ts";
import {
  dailyFigures,
  portfolioTotals,
  queuedProjects,
  recentScans,
  scanStatusCounts,
  teamsByRisk,
  type QueuedRow,
} from "../store/portfolio/dashboards.ts";
import {
  componentHoldings,
  dependencyPaths,
  openFindingsOfRows,
  searchPortfolio,
  type SearchHitRow,
} from "../store/portfolio/holdings.ts";
import { projectById } from "../store/projects.ts";
import { componentView, optional } from "./inventory-reads.ts";

/** Projects one component detail lists at most (the newest snapshot of each); truncated past it. */
export const HOLDINGS_MAX = 500;

export interface PortfolioDeps {
  orm: MikroORM;
  directory: Directory;
}

const severities = (r: { critical: number; high: number; medium: number; low: number; unknown: number }) =>
  create(SeverityCountsSchema, {
    critical: r.critical,
    high: r.high,
    medium: r.medium,
    low: r.low,
    unknown: r.unknown,
  });
const licenses = (r: {
  licenseAllowed: number;
  licenseConditional: number;
  licenseForbidden: number;
  licenseUncategorized: number;
}) =>
  create(LicenseCategoryCountsSchema, {
    allowed: r.licenseAllowed,
    conditional: r.licenseConditional,
    forbidden: r.licenseForbidden,
    uncategorized: r.licenseUncategorized,
  });
const queued = (r: QueuedRow) =>
  create(QueuedProjectSchema, {
    projectId: r.projectId,
    projectName: r.projectName,
    teamId: r.teamId,
    riskScore: r.riskScore,
    critical: r.critical,
    forbiddenLicenses: r.licenseForbidden,
    malicious: r.malicious,
    knownExploited: r.knownExploited,
    kevOldestDueDate: r.kevOldestDueDate,
    lastScannedAt: r.scannedAt ? timestampFromDate(r.scannedAt) : undefined,
  });

export function registerPortfolioService(router: ConnectRouter, deps: PortfolioDeps): void {
  router.service(PortfolioService, {
    async getPortfolioComponent(req, ctx) {
      const caller = requireCaller(ctx);
      const notFound = () => ProblemError.notFound("No project you may read holds this component.");
      if (!isUuid(req.componentId)) throw notFound();
      const em = deps.orm.em.fork();
      const rows = await componentHoldings(em, listScope(caller), req.componentId.toLowerCase(), HOLDINGS_MAX);
      if (rows.length === 0) throw notFound();
      const shown = rows.slice(0, HOLDINGS_MAX);
      const ids = shown.map((r) => r.rowId);
      const components = new Map(
        (await em.find(InventoryComponent, { id: { $in: ids } }, SNAPSHOT)).map((c) => [c.id, c]),
      );
      const findings = await openFindingsOfRows(em, ids);
      return create(GetPortfolioComponentResponseSchema, {
        componentId: req.componentId.toLowerCase(),
        truncated: rows.length > HOLDINGS_MAX,
        holdings: shown.map((h) =>
          create(ComponentHoldingSchema, {
            projectId: h.projectId,
            projectName: h.projectName,
            teamId: h.teamId,
            scannedAt: timestampFromDate(h.ingestedAt),
            release: optional(h.release),
            component: componentView(components.get(h.rowId)!),
            vulnerabilities: findings
              .filter((f) => f.componentRowId === h.rowId)
              .map((f) =>
                create(HoldingVulnerabilitySchema, {
                  findingId: f.id,
                  vulnerabilityId: f.vulnerabilityId,
                  severity: f.severity,
                  status: f.status,
                  knownExploited: f.knownExploited,
                }),
              ),
          }),
        ),
      });
    },

    async getLicenseFinding(req, ctx) {
      const caller = requireCaller(ctx);
      const notFound = () => ProblemError.notFound("No such license finding.");
      if (!isUuid(req.findingId)) throw notFound();
      const em = deps.orm.em.fork();
      const row = await em.findOne(InventoryComponent, { id: req.findingId.toLowerCase() }, SNAPSHOT);
      const project = row ? await projectById(em, row.projectId) : null;
      if (!row || !project || !mayRead(caller, project)) throw notFound();
      return create(GetLicenseFindingResponseSchema, { component: componentView(row) });
    },

    async getPortfolioOverview(_req, ctx) {
      const reach = dashboardReach(requireCaller(ctx));
      const em = deps.orm.em.fork();
      const [totals, statuses, scans] = [
        await portfolioTotals(em, reach),
        await scanStatusCounts(em, reach),
        await recentScans(em, reach),
      ];
      return create(GetPortfolioOverviewResponseSchema, {
        reach: reachName(reach),
        projectCount: totals.projectCount,
        scanStatusCounts: statuses,
        vulnerabilitySeverityCounts: severities(totals),
        licenseCategoryCounts: licenses(totals),
        knownExploitedCount: totals.knownExploited,
        recentScans: scans.map((s) =>
          create(RecentScanSchema, {
            scanId: s.scanId,
            projectId: s.projectId,
            projectName: s.projectName,
            status: s.status,
            release: optional(s.release),
            createdAt: timestampFromDate(s.scanCreatedAt),
            completedAt: s.completedAt ? timestampFromDate(s.completedAt) : undefined,
          }),
        ),
      });
    },

    async getActionQueue(req, ctx) {
      const reach = dashboardReach(requireCaller(ctx));
      const v: FieldViolation[] = [];
      const limit = queueLimitOf(req.limit, v);
      if (v.length) throw ProblemError.validation(v);
      const em = deps.orm.em.fork();
      const [blocked, kev, stale] = [
        await queuedProjects(em, reach, "gate_blocked", limit),
        await queuedProjects(em, reach, "kev_sla", limit),
        await queuedProjects(em, reach, "stale", limit),
      ];
      return create(GetActionQueueResponseSchema, {
        reach: reachName(reach),
        gateBlocked: blocked.map(queued),
        gateBlockedCount: blocked[0]?.total ?? 0,
        kevSla: kev.map(queued),
        kevSlaCount: kev[0]?.total ?? 0,
        staleProjects: stale.map(queued),
        staleProjectCount: stale[0]?.total ?? 0,
        staleAfterDays: STALE_AFTER_DAYS,
      });
    },

    async listTeamsByRisk(_req, ctx) {
      const caller = requireCaller(ctx);
      const reach = dashboardReach(caller);
      const rows = await teamsByRisk(deps.orm.em.fork(), reach, TEAMS_BY_RISK_CAP);
      const shown = rows.slice(0, TEAMS_BY_RISK_CAP);
      const names = await deps.directory.names(
        caller,
        shown.map((t) => t.teamId),
        [],
      );
      return create(ListTeamsByRiskResponseSchema, {
        reach: reachName(reach),
        teamCount: rows[0]?.teamCount ?? 0,
        projectCount: rows[0]?.portfolioProjectCount ?? 0,
        shownTeamCount: shown.length,
        shownProjectCount: shown.reduce((sum, t) => sum + t.projectCount, 0),
        truncated: rows.length > TEAMS_BY_RISK_CAP,
        teams: shown.map((t) =>
          create(TeamRiskSchema, {
            teamId: t.teamId,
            teamName: names.teams.get(t.teamId)?.name ?? "",
            projectCount: t.projectCount,
            riskScore: t.riskScore,
            gateBlocked: t.gateBlocked,
            vulnerabilitySeverityCounts: severities(t),
            knownExploited: t.knownExploited,
            forbiddenLicenses: t.licenseForbidden,
          }),
        ),
      });
    },

    async getTrends(req, ctx) {
      const reach = dashboardReach(requireCaller(ctx));
      const v: FieldViolation[] = [];
      const { interval, points } = trendRequestOf(req.interval, req.points, v);
      if (v.length) throw ProblemError.validation(v);
      const starts = bucketStarts(isoDate(new Date()), interval, points);
      const days = await dailyFigures(deps.orm.em.fork(), reach, starts[0]!, isoDate(new Date()));
      const byDay = new Map(days.map((d) => [d.day, d]));
      const measured = measuredDays(
        starts,
        days.map((d) => d.day),
        interval,
      );
      return create(GetTrendsResponseSchema, {
        reach: reachName(reach),
        interval,
        buckets: starts.map((start, i) => {
          const day = measured[i] ? byDay.get(measured[i])! : null;
          return create(TrendBucketSchema, {
            periodStart: start,
            measuredOn: measured[i] ?? "",
            ...(day
              ? {
                  projectCount: day.projectCount,
                  vulnerabilitySeverityCounts: severities(day),
                  licenseCategoryCounts: licenses(day),
                  knownExploited: day.knownExploited,
                  gateBlocked: day.gateBlocked,
                  gatePassed: optional(day.gatePassed),
                  openFindings: day.openFindings,
                  fixedFindings: day.fixedFindings,
                  meanDaysToRemediate: optional(day.meanDaysToRemediate),
                }
              : {}),
          });
        }),
      });
    },

    async searchPortfolio(req, ctx) {
      const caller = requireCaller(ctx);
      const v: FieldViolation[] = [];
      const { query, page, size } = searchOf(
        {
          ecosystem: req.ecosystem,
          packageName: req.packageName,
          version: req.version,
          vulnerability: req.vulnerability,
          license: req.license,
          page: req.page,
          size: req.size,
        },
        v,
      );
      if (v.length || !query) throw ProblemError.validation(v);
      const em = deps.orm.em.fork();
      const window = req.unpaged ? { limit: SEARCH_EXPORT_MAX, offset: 0 } : { limit: size, offset: (page - 1) * size };
      const scope = listScope(caller);
      const { hits, total } = await searchHits(em, scope, query, window);
      const findings = await openFindingsOfRows(
        em,
        hits.map((h) => h.rowId),
      );
      const paths = await dependencyPaths(em, hits);
      const items = [];
      for (const h of hits) {
        const path = paths.get(h.rowId) ?? [];
        const root = h.rootName ? [h.rootVersion ? `${h.rootName}@${h.rootVersion}` : h.rootName] : [];
        items.push(
          create(SearchHitSchema, {
            projectId: h.projectId,
            projectName: h.projectName,
            teamId: h.teamId,
            scanId: h.scanId,
            release: optional(h.release),
            componentId: h.componentId,
            componentRowId: h.rowId,
            name: h.name,
            version: optional(h.version),
            purl: optional(h.purl),
            license: optional(h.license),
            direct: optional(h.direct),
            dependencyPath: path.length ? [...root, ...path] : [],
            vulnerabilities: findings.filter((f) => f.componentRowId === h.rowId).map((f) => f.vulnerabilityId),
          }),
        );
      }
      return create(SearchPortfolioResponseSchema, { items, total, page, size });
    },
  });
}

/**
 * The window's hits and their total. A version range is judged here in each component's ecosystem order: every
 * component of the name in reach is read (at most SEARCH_EXPORT_MAX) and those in range kept.
 */
async function searchHits(
  em: EntityManager,
  scope: ListScope,
  query: PortfolioQuery,
  window: { limit: number; offset: number },
): Promise<{ hits: SearchHitRow[]; total: number }> {
  if (query.kind === "package" && query.version?.kind === "range") {
    const range = query.version.range;
    const named = await searchPortfolio(em, scope, query, { limit: SEARCH_EXPORT_MAX, offset: 0 });
    const inRange = named.filter((h) => componentInRange(range, h.purl));
    return { hits: inRange.slice(window.offset, window.offset + window.limit), total: inRange.length };
  }
  const hits = await searchPortfolio(em, scope, query, window);
  // A page past the end has no row to carry the total: counted from the first page.
  const total =
    hits[0]?.total ??
    (window.offset > 0 ? ((await searchPortfolio(em, scope, query, { limit: 1, offset: 0 }))[0]?.total ?? 0) : 0);
  return { hits, total };
}
