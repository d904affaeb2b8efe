// New data reaching existing findings without a scan (docs/vulnerability-database.md, "Re-matching after a
// refresh"). An import queues the package names it changed, an EPSS or KEV refresh queues itself, each in the
// transaction that changed the data (store/pending-refreshes.ts); this loop works the queue off in bulk:
// - re-match: the queued names' versions held by any project's latest inventory (ListHeldVersions), each matched
//   once, the new verdicts recorded (RecordRefreshMatches: projects dates the findings that appear or disappear and
//   publishes FindingsChanged);
// - enrichment: every vulnerability of the database carrying a CVE, with its EPSS score and KEV listing
//   (RecordVulnerabilityUpdates);
// - component states: after an end-of-life or malicious snapshot refresh, every project's newest snapshot
//   re-stamped (feeds/component-restamp.ts) and the feed's panel counts recorded.
// A batch is forgotten only in the transaction that saw it through, so a runner dying mid-way leaves it queued and
// the next start (or instance) does it again; projects records verdicts idempotently, so nothing is doubled.
import type { MikroORM } from "@mikro-orm/postgresql";
import type { PackageVersion } from "@sca/purl-package";
import { stageClock, type Logger } from "@sca/log";
import { column, rawQuery } from "@sca/db";
import type { ComponentStates } from "../clients/component-states.ts";
import { cveIdsOf, vulnerabilityMessage, type VulnerabilityMatches } from "../clients/vulnerability-matches.ts";
import { refreshVerdictsOf } from "../domain/vulndb/scan-verdicts.ts";
import { panelCountsOf, restampInventories, type StampFeed } from "../feeds/component-restamp.ts";
import type { EnrichmentReader } from "../feeds/enrichment-reader.ts";
import { recordFeedCounts } from "../store/feed-status.ts";
import {
  COMPONENT_STATE_FEEDS,
  enrichmentUpdatesQueued,
  FINDINGS_FEEDS,
  forgetEnrichmentUpdates,
  forgetRematchPackages,
  takeEnrichmentUpdates,
  takeRematchPackages,
} from "../store/pending-refreshes.ts";
import type { AdvisoryDatabase } from "./advisory-database.ts";
import { currentStatus } from "./import-advisories.ts";

/** Package names taken per transaction. */
const PACKAGES_PER_BATCH = 2000;
/** Verdicts per RecordRefreshMatches call (one projects transaction each). */
const VERDICTS_PER_CALL = 5000;
/** Vulnerabilities per RecordVulnerabilityUpdates call. */
const UPDATES_PER_CALL = 1000;
/** How often the queue is looked at (a cheap read): another instance's import or a feed refresh waits this long. */
const POLL_MS = 2000;
const CALL_TIMEOUT_MS = 300_000;

export interface PropagationTotals {
  packages: number;
  versions: number;
  findingsAdded: number;
  findingsRemoved: number;
  vulnerabilitiesUpdated: number;
  /** Component rows whose end-of-life or malicious state a snapshot refresh changed. */
  componentsRestamped: number;
  /** Wall milliseconds of each stage of the re-match, summed over its batches (REMATCH_STAGES). */
  stageMs: Record<RematchStage, number>;
}

/**
 * The stages of a re-match, in order: component states re-stamped first when a snapshot feed is queued too, the
 * matcher loaded, a batch's names taken from the queue, their held versions listed, matched (with the feeds'
 * scores), recorded by projects (findings written and events queued there), the batch forgotten and committed.
 * Logged per batch and summed, so a slow run shows where its time went.
 */
const REMATCH_STAGES = ["restamp", "matcher", "take", "held", "match", "record", "commit"] as const;
type RematchStage = (typeof REMATCH_STAGES)[number];

export interface RefreshPropagationDeps {
  orm: MikroORM;
  vulndb: AdvisoryDatabase;
  matches: VulnerabilityMatches;
  enrichment: EnrichmentReader;
  componentStates: ComponentStates;
  logger: Logger;
}

export class RefreshPropagation {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<PropagationTotals> | null = null;
  private woken = false;
  private readonly stopped = new AbortController();
  private readonly deps: RefreshPropagationDeps;

  constructor(deps: RefreshPropagationDeps) {
    this.deps = deps;
  }

  /** Works the queue off (resuming what a stopped runner left); one run at a time per instance. */
  drain(): Promise<PropagationTotals> {
    if (!this.running) {
      this.woken = false;
      this.running = this.drainOnce().finally(() => {
        this.running = null;
        // Woken while running: what was queued meanwhile is worked off now, not at the next poll.
        if (this.woken && !this.stopped.signal.aborted) this.drainLogged();
      });
    }
    return this.running;
  }

  /**
   * Drains now, or right after the drain under way: called when this instance's import loaded a new matcher, so its
   * queue is worked off without waiting for the poll.
   */
  wake(): void {
    if (this.running) this.woken = true;
    else this.drainLogged();
  }

  /** Drains at start, when woken, and every POLL_MS (another instance's import or a feed refresh). */
  start(): void {
    this.timer = setInterval(() => this.drainLogged(), POLL_MS);
    this.timer.unref();
    this.drainLogged();
  }

  private drainLogged(): void {
    void this.drain().catch((err: unknown) => {
      if (!this.stopped.signal.aborted) this.deps.logger.error({ err }, "refresh propagation failed; retried");
    });
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.stopped.abort();
    await this.running?.catch(() => undefined);
  }

  private async drainOnce(): Promise<PropagationTotals> {
    const totals: PropagationTotals = {
      packages: 0,
      versions: 0,
      findingsAdded: 0,
      findingsRemoved: 0,
      vulnerabilitiesUpdated: 0,
      componentsRestamped: 0,
      stageMs: Object.fromEntries(REMATCH_STAGES.map((s) => [s, 0])) as Record<RematchStage, number>,
    };
    const em = this.deps.orm.em.fork();
    const queued = await rawQuery(em, `select (exists (select 1 from vulndb_rematch_packages)) as rematch`, [], {
      rematch: column.boolean,
    });
    const enrichment = await enrichmentUpdatesQueued(em, FINDINGS_FEEDS);
    const states = await enrichmentUpdatesQueued(em, COMPONENT_STATE_FEEDS);
    const started = Date.now();
    // Component states need no advisory matcher: re-stamped first, without loading it.
    if (states && !this.stopped.signal.aborted) await this.restampStates(totals);
    totals.stageMs.restamp += Date.now() - started;
    if (!queued[0]?.rematch && !enrichment) {
      if (totals.componentsRestamped > 0)
        this.deps.logger.info(
          { ...totals, durationMs: Date.now() - started },
          "refreshed snapshots reached the components",
        );
      return totals;
    }
    // The matcher of the current database version (importing first on a fresh install).
    let at = Date.now();
    await this.deps.vulndb.index();
    totals.stageMs.matcher += Date.now() - at;
    // The queue is looked at again once the matcher is in: loading it may have waited for an import (a fresh
    // install's), whose names are then due before the EPSS and KEV scores, not after another drain.
    while (!this.stopped.signal.aborted) {
      const batch = await this.rematchBatch(totals);
      if (batch === "done") break;
      if (batch === "stale") {
        // An import committed since the matcher was loaded: load the new one, then go on.
        const before = this.deps.vulndb.loaded?.version;
        at = Date.now();
        await this.deps.vulndb.check();
        totals.stageMs.matcher += Date.now() - at;
        if (this.deps.vulndb.loaded?.version === before) break;
      }
    }
    if (enrichment && !this.stopped.signal.aborted) await this.enrichmentUpdates(totals);
    if (totals.packages > 0 || totals.vulnerabilitiesUpdated > 0 || totals.componentsRestamped > 0)
      this.deps.logger.info({ ...totals, durationMs: Date.now() - started }, "refreshed data reached the findings");
    return totals;
  }

  /**
   * One batch of queued package names, in one transaction holding their rows. The matcher cannot be older than the
   * data of the batch: the stored version is read after the rows are locked (an import committed before that is
   * seen, and loaded first), and an import committing later re-queues its names with an upsert that waits for these
   * row locks, so they come round again after this batch.
   */
  private async rematchBatch(totals: PropagationTotals): Promise<"done" | "stale" | "more"> {
    const { stageMs: batch, lap } = stageClock(REMATCH_STAGES);
    let versionCount = 0;
    let packageCount = 0;
    const outcome = await this.deps.orm.em.fork().transactional(async (em) => {
      const packages = await takeRematchPackages(em, PACKAGES_PER_BATCH);
      if (packages.length === 0) return "done";
      const loaded = this.deps.vulndb.loaded;
      const status = await currentStatus(em);
      lap("take");
      if (!loaded || status?.databaseVersion !== loaded.version) return "stale";
      const signal = AbortSignal.any([this.stopped.signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]);
      let versions: PackageVersion[] = [];
      const flush = async () => {
        if (versions.length === 0) return;
        const { verdicts, vulnerabilities } = refreshVerdictsOf(loaded.index, versions);
        versionCount += versions.length;
        versions = [];
        const cves = vulnerabilities.flatMap(cveIdsOf);
        const enrichment = {
          epss: await this.deps.enrichment.epssOf(cves),
          kev: await this.deps.enrichment.kevEntriesOf(cves),
        };
        const request = {
          databaseVersion: loaded.version,
          vulnerabilities: vulnerabilities.map((v) => vulnerabilityMessage(v, enrichment)),
          verdicts: verdicts.map((v) => ({ package: v.package, vulnerabilities: v.vulnerabilities })),
        };
        lap("match");
        const recorded = await this.deps.matches.recordRefreshMatches(request, signal);
        lap("record");
        totals.findingsAdded += recorded.findingsAdded;
        totals.findingsRemoved += recorded.findingsRemoved;
      };
      for await (const chunk of this.deps.matches.listHeldVersions(packages, signal)) {
        versions.push(...chunk);
        lap("held");
        if (versions.length >= VERDICTS_PER_CALL) await flush();
      }
      lap("held");
      await flush();
      await forgetRematchPackages(em, packages);
      packageCount = packages.length;
      return "more";
    });
    lap("commit");
    totals.packages += packageCount;
    totals.versions += versionCount;
    for (const s of REMATCH_STAGES) totals.stageMs[s] += batch[s];
    if (outcome === "more")
      this.deps.logger.info(
        { packages: packageCount, versions: versionCount, stageMs: batch },
        "re-match batch recorded",
      );
    return outcome;
  }

  /** Every vulnerability carrying a CVE, with the feeds' current scores and flags, in one transaction. */
  private enrichmentUpdates(totals: PropagationTotals): Promise<void> {
    return this.deps.orm.em.fork().transactional(async (em) => {
      const feeds = await takeEnrichmentUpdates(em, FINDINGS_FEEDS);
      if (feeds.length === 0) return;
      const { index } = await this.deps.vulndb.index();
      const signal = AbortSignal.any([this.stopped.signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]);
      const withCves = [...index.vulnerabilities.values()].filter((v) => cveIdsOf(v).length > 0);
      let knownExploitedFindings: bigint | null = null;
      for (let i = 0; i < withCves.length; i += UPDATES_PER_CALL) {
        const slice = withCves.slice(i, i + UPDATES_PER_CALL);
        const cves = slice.flatMap(cveIdsOf);
        const enrichment = {
          epss: await this.deps.enrichment.epssOf(cves),
          kev: await this.deps.enrichment.kevEntriesOf(cves),
        };
        const r = await this.deps.matches.recordVulnerabilityUpdates(
          slice.map((v) => vulnerabilityMessage(v, enrichment)),
          signal,
        );
        totals.vulnerabilitiesUpdated += r.updated;
        knownExploitedFindings = r.knownExploitedFindings;
      }
      // The KEV panel's count as projects answered it after the last update (every flag is in place by then).
      if (knownExploitedFindings !== null)
        await recordFeedCounts(em, "kev", { kev_flagged_total: Number(knownExploitedFindings) });
      await forgetEnrichmentUpdates(em, feeds);
    });
  }

  /**
   * The queued end-of-life and malicious refreshes, in one transaction holding their queue rows: a refresh committing
   * meanwhile re-queues its feed with an upsert that waits for these locks, so it comes round again after this pass.
   */
  private restampStates(totals: PropagationTotals): Promise<void> {
    return this.deps.orm.em.fork().transactional(async (em) => {
      const feeds = (await takeEnrichmentUpdates(em, COMPONENT_STATE_FEEDS)) as StampFeed[];
      if (feeds.length === 0) return;
      const signal = AbortSignal.any([this.stopped.signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]);
      const restamped = await restampInventories(this.deps, feeds, signal);
      for (const feed of restamped.feeds) await recordFeedCounts(em, feed, panelCountsOf(feed, restamped));
      totals.componentsRestamped += restamped.updated;
      await forgetEnrichmentUpdates(em, feeds);
    });
  }
}
