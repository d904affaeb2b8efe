// ComponentStateService: the scanner-runner's enrichment states (end of life, currency, malicious) recorded on an
// ingested scan's components in one write (docs/inventory.md, "Component states"), and re-stamped on every
// project's newest snapshot when the end-of-life dataset or the malicious snapshot changes (docs/enrichment-feeds.md,
// "Re-stamping after a snapshot refresh"). Components becoming flagged are published (MaliciousComponentsFlagged).
// The registry license lookup's licenses land here too, after the findings (docs/license-fetch.md).
// Only the scanner-runner calls it.
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import { ProblemError, type FieldViolation } from "@sca/problem";
import {
  ComponentStateService,
  CountComponentStatesResponseSchema,
  ListHeldPurlsResponseSchema,
  RecordComponentStatesResponseSchema,
  RecordFetchedLicensesResponseSchema,
  RestampComponentStatesResponseSchema,
} from "@sca/proto/sca/projects/v1/component_states_pb.ts";
import { requireService } from "@sca/rpc";
import type { IdleCollection } from "@sca/runtime";
import { checkedComponentStates } from "../domain/component-states.ts";
import { checkedFetchedLicenses } from "../domain/fetched-licenses.ts";
import { isUuid } from "../domain/project-fields.ts";
import { emitMaliciousFlagged } from "../events/malicious-flags.ts";
import { emitInventoryLicensesFetched } from "../events/project-events.ts";
import {
  componentStateCounts,
  flaggedComponents,
  heldPurls,
  newlyFlagged,
  restampComponentStates,
  RESTAMP_FEEDS,
  writeComponentStates,
  type RestampFeed,
} from "../store/inventory/component-states.ts";
import { lockProjectInventory } from "../store/inventory/ingestion.ts";
import { writeFetchedLicenses } from "../store/inventory/licenses.ts";
import { snapshotProject } from "../store/inventory/snapshots.ts";
import { MATCH_CALLER } from "./vulnerability-matches.ts";

const HELD_CHUNK = 5000;

export interface ComponentStateDeps {
  orm: MikroORM;
  wakeRelay: () => void;
  /** A large scan's garbage is collected once projects is quiet: not while its states are recorded. */
  memory: IdleCollection;
}

const isRestampFeed = (f: string): f is RestampFeed => Object.hasOwn(RESTAMP_FEEDS, f);

export function registerComponentStateService(router: ConnectRouter, deps: ComponentStateDeps): void {
  router.service(ComponentStateService, {
    async recordComponentStates(req, ctx: HandlerContext) {
      requireService(ctx, MATCH_CALLER);
      const v: FieldViolation[] = [];
      if (!isUuid(req.scanId)) v.push({ path: "scan_id", message: "must be a UUID" });
      if (!isUuid(req.projectId)) v.push({ path: "project_id", message: "must be a UUID" });
      const states = checkedComponentStates(req.states, v);
      if (v.length) throw ProblemError.validation(v);
      const scanId = req.scanId.toLowerCase();
      const projectId = req.projectId.toLowerCase();
      const now = new Date();
      const { updated, events } = await deps.memory.during(
        () =>
          deps.orm.em.fork().transactional(async (em) => {
            // One writer of a project's inventory at a time: the license-policy consumer re-categorises the same rows
            // after an ingestion, and two updates of many rows in different orders deadlock.
            await lockProjectInventory(em, projectId);
            if ((await snapshotProject(em, scanId)) !== projectId)
              throw ProblemError.notFound("No inventory of this scan of this project was ingested.");
            const changed = await writeComponentStates(em, scanId, states);
            const flagged = await flaggedComponents(
              em,
              newlyFlagged(changed).map((r) => r.id),
              true,
            );
            return { updated: changed.length, events: emitMaliciousFlagged(em, flagged, "scan", now) };
          }),
        () => states.length,
      );
      if (events) deps.wakeRelay();
      return create(RecordComponentStatesResponseSchema, { updated });
    },

    async recordFetchedLicenses(req, ctx: HandlerContext) {
      requireService(ctx, MATCH_CALLER);
      const v: FieldViolation[] = [];
      if (!isUuid(req.scanId)) v.push({ path: "scan_id", message: "must be a UUID" });
      if (!isUuid(req.projectId)) v.push({ path: "project_id", message: "must be a UUID" });
      const licenses = checkedFetchedLicenses(req.licenses, v);
      if (v.length) throw ProblemError.validation(v);
      const scanId = req.scanId.toLowerCase();
      const projectId = req.projectId.toLowerCase();
      const updated = await deps.orm.em.fork().transactional(async (em) => {
        await lockProjectInventory(em, projectId); // as recordComponentStates
        if ((await snapshotProject(em, scanId)) !== projectId)
          throw ProblemError.notFound("No inventory of this scan of this project was ingested.");
        const filled = await writeFetchedLicenses(em, scanId, licenses);
        // Categorised again by projects' own license-policy consumer, as an ingestion is (never waiting on policy).
        if (filled > 0) emitInventoryLicensesFetched(em, projectId, scanId, filled, new Date());
        return filled;
      });
      if (updated > 0) deps.wakeRelay();
      return create(RecordFetchedLicensesResponseSchema, { updated });
    },

    async *listHeldPurls(_req, ctx: HandlerContext) {
      requireService(ctx, MATCH_CALLER);
      const em = deps.orm.em.fork();
      let after = "";
      for (;;) {
        const purls = await heldPurls(em, after, HELD_CHUNK);
        if (purls.length === 0) return;
        yield create(ListHeldPurlsResponseSchema, { purls });
        if (purls.length < HELD_CHUNK) return;
        after = purls[purls.length - 1]!;
      }
    },

    async restampComponentStates(req, ctx: HandlerContext) {
      requireService(ctx, MATCH_CALLER);
      const v: FieldViolation[] = [];
      const feeds = [...new Set(req.feeds)];
      feeds.forEach((f, i) => {
        if (!isRestampFeed(f)) v.push({ path: `feeds[${i}]`, message: "must be eol or malicious" });
      });
      if (feeds.length === 0) v.push({ path: "feeds", message: "must name eol, malicious or both" });
      const states = checkedComponentStates(req.states, v);
      if (v.length) throw ProblemError.validation(v);
      const now = new Date();
      const outcome = await deps.orm.em.fork().transactional(async (em) => {
        const changed = await restampComponentStates(em, feeds.filter(isRestampFeed), states);
        const flagged = newlyFlagged(changed);
        const events = emitMaliciousFlagged(
          em,
          await flaggedComponents(
            em,
            flagged.map((r) => r.id),
            false,
          ),
          "snapshot_refresh",
          now,
        );
        return {
          updated: changed.length,
          newlyFlagged: flagged.length,
          eolCleared: changed.filter((r) => r.eolBefore === "eol" && r.eolState !== "eol").length,
          projectsTouched: new Set(changed.map((r) => r.projectId)).size,
          events,
        };
      });
      if (outcome.events) deps.wakeRelay();
      return create(RestampComponentStatesResponseSchema, outcome);
    },

    async countComponentStates(_req, ctx: HandlerContext) {
      requireService(ctx, MATCH_CALLER);
      return create(CountComponentStatesResponseSchema, await componentStateCounts(deps.orm.em.fork()));
    },
  });
}
