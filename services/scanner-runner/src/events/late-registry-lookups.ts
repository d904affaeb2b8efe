// The registry lookups a scan's outcome did not wait for (docs/license-fetch.md, "After the outcome"): the job queues
// the purls whose license or currency had not answered within REGISTRY_LOOKUP_WAIT_SECONDS (late_registry_lookups, in
// its transaction with the outcome); this loop takes them one scan at a time, asks the registries again (the same
// client: its cache and its downloads still in flight answer at once), each lookup capped as the scan's own
// (LICENSE_FETCH_STAGE_SECONDS, CURRENCY_LOOKUP_STAGE_SECONDS), and has projects record the answers on the scan's
// snapshot: the licenses through RecordFetchedLicenses (projects then categorises them again and the gate is judged
// again), the currency with the purls' other states through RecordComponentStates. A lookup is forgotten only after
// projects recorded it; when recording fails it is taken again later, and a runner dying mid-way leaves it to another
// once its lease passes.
import type { MikroORM } from "@mikro-orm/postgresql";
import type { Logger } from "@sca/log";
import {
  claimLateLookup,
  forgetLateLookup,
  retryLateLookupAfter,
  type LateLookup,
} from "../store/late-registry-lookups.ts";
import { recordStatesOf, type ComponentStateDeps } from "./component-states-stage.ts";
import { fillLicenses, licenseReleaseOf, type LicenseFetchDeps, type WantedLicense } from "./license-fetch-stage.ts";

export interface LateLookupDeps {
  orm: MikroORM;
  licenseFetch: LicenseFetchDeps;
  states: ComponentStateDeps;
  logger: Logger;
}

/** How often the queue is looked at (a cheap read): a scan's late lookups start within this of its outcome. */
const POLL_MS = 1000;
/** A lookup whose answers could not be recorded (projects unreachable) is taken again after this. */
const RETRY_MS = 30_000;
/** Beyond the two lookups' caps: the recording calls. */
const LEASE_MARGIN_MS = 120_000;

export class LateRegistryLookups {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<number> | null = null;
  readonly #stopped = new AbortController();
  readonly #deps: LateLookupDeps;

  constructor(deps: LateLookupDeps) {
    this.#deps = deps;
  }

  /** Works the queue off; answers how many scans' lookups were seen through. One run at a time per instance. */
  drain(): Promise<number> {
    this.#running ??= this.#drainOnce().finally(() => (this.#running = null));
    return this.#running;
  }

  start(): void {
    this.#timer = setInterval(() => {
      this.drain().catch((err: unknown) => this.#deps.logger.error({ err }, "late registry lookups failed"));
    }, POLL_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#stopped.abort();
    await this.#running?.catch(() => undefined);
  }

  async #drainOnce(): Promise<number> {
    const { orm, licenseFetch, states, logger } = this.#deps;
    const leaseMs = licenseFetch.stageMs + states.currencyStageMs + LEASE_MARGIN_MS;
    let done = 0;
    while (!this.#stopped.signal.aborted) {
      const lookup = await claimLateLookup(orm.em.fork(), leaseMs);
      if (!lookup) break;
      try {
        await this.#lookUp(lookup);
        await forgetLateLookup(orm.em.fork(), lookup);
        done++;
      } catch (err) {
        if (!this.#stopped.signal.aborted) logger.warn({ err, scanId: lookup.scanId }, "late registry lookup failed");
        await retryLateLookupAfter(orm.em.fork(), lookup, this.#stopped.signal.aborted ? 0 : RETRY_MS);
        if (this.#stopped.signal.aborted) break;
      }
    }
    return done;
  }

  async #lookUp(lookup: LateLookup): Promise<void> {
    const { licenseFetch, states, logger } = this.#deps;
    const signal = this.#stopped.signal;
    const scan = { projectId: lookup.projectId, scanId: lookup.scanId };
    const registries = licenseFetch.registries;
    const wanting = lookup.licensePurls.flatMap((purl): WantedLicense[] => {
      const release = licenseReleaseOf(purl);
      return release && release !== "unpublished"
        ? [{ component: { purl, declaredLicense: null, concludedLicense: null }, release }]
        : [];
    });
    const [licenses, assessed] = await Promise.all([
      registries && wanting.length > 0
        ? fillLicenses(
            scan,
            wanting,
            { ...licenseFetch, registries },
            AbortSignal.any([signal, AbortSignal.timeout(licenseFetch.stageMs)]),
            signal,
          )
        : null,
      states.registries && lookup.currencyPurls.length > 0
        ? recordStatesOf(
            scan,
            lookup.currencyPurls,
            states,
            AbortSignal.any([signal, AbortSignal.timeout(states.currencyStageMs)]),
            signal,
          )
        : null,
    ]);
    logger.info(
      {
        scanId: lookup.scanId,
        licensesAsked: wanting.length,
        licensesFilled: licenses?.fills.licenses.length ?? 0,
        licenseRowsUpdated: licenses?.updated ?? 0,
        licensesNotReached: licenses?.unanswered.length ?? 0,
        currencyAsked: lookup.currencyPurls.length,
        currencyNotReached: assessed?.unanswered.length ?? 0,
      },
      "late registry lookups recorded",
    );
  }
}
