// What a service offers the tests of other services, through the test kit: a test of the gateway needs a user in
// identity's tables or an access token as a login would issue it, and must not import identity's code to get them.
// Each service that offers fixtures implements its entry in services/<name>/test/fixtures.ts; tests ask for them by
// name (fixturesOf), so the only door between services' tests is this one.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { RecordScanMatchesRequestSchema } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";

export interface ServiceFixtures {
  identity: {
    /** A user row (no password) made directly in identity's tables; answers its id. */
    user(
      orm: MikroORM,
      opts?: { superAdmin?: boolean; active?: boolean; email?: string; fullName?: string },
    ): Promise<string>;
    /** A person who signs in with `password`, made directly in identity's tables; answers their id. */
    person(orm: MikroORM, opts: { email: string; password: string; superAdmin?: boolean }): Promise<string>;
    /** An access token for the user as a login issues it; `issuedAt` in the past makes an expired one. */
    accessToken(
      userId: string,
      opts?: { secretKey?: string; lifetimeMinutes?: number; issuedAt?: Date },
    ): Promise<string>;
    /** A well-formed API key that no deployment issued. */
    unknownApiKey(): string;
  };
  admin: {
    /**
     * `count` audit entries appended after the log's head in one bulk write (COPY), chained as the consumer chains
     * them, each with `fields` (`i` is the entry's index in the batch); answers the positions of the first and last.
     */
    auditEntries(
      orm: MikroORM,
      count: number,
      fields?: (i: number) => {
        action?: string;
        actorUserId?: string;
        teamId?: string;
        targetTable?: string;
        targetId?: string;
        occurredAt?: Date;
      },
    ): Promise<{ first: number; last: number }>;
  };
  "scan-orchestrator": {
    /**
     * A scan row made directly in the scan-orchestrator's tables (kind sbom, queued unless told; `ref` as given, also
     * normalised); answers its id.
     */
    scan(
      orm: MikroORM,
      opts: {
        teamId: string;
        projectId: string;
        status?: "queued" | "running" | "succeeded" | "failed" | "cancelled";
        release?: string | null;
        ref?: string;
        createdAt?: Date;
        supersededAt?: Date | null;
      },
    ): Promise<string>;
  };
  projects: {
    /**
     * A small inventory artefact whose package versions have known vulnerabilities (jackson-databind, git, lodash,
     * log4j-core; left-pad assessed clean; a Go tool never assessed), and the scanner-runner's verdicts for it.
     */
    findingsArtefact(): Uint8Array;
    scanMatches(
      projectId: string,
      scanId: string,
      databaseVersion?: string,
    ): MessageInitShape<typeof RecordScanMatchesRequestSchema>;
    /** The artefact's purls by short name. */
    purls: Record<"jackson" | "git" | "lodash" | "log4j" | "leftPad" | "unassessed", string>;
  };
  "scanner-runner": {
    /**
     * The inventory artefact (a size-delimited stream of sca.projects.v1.InventoryRecord) the scanner-runner writes
     * for this SBOM; `scopeFilter` is SCAN_SCOPE_FILTER_ENABLED (default true: excluded components are dropped).
     */
    inventoryArtefactOf(sbom: Uint8Array | string, opts?: { scopeFilter?: boolean }): Uint8Array;
    /**
     * Resolves once a started runner's own start-up work is done (advisories imported and re-matched, the KEV and
     * EPSS snapshots loaded and pushed to findings), so a test's findings are not rewritten under it.
     */
    startUpSettled(orm: MikroORM, timeoutMs?: number): Promise<void>;
  };
}

export type FixtureService = keyof ServiceFixtures;

/** The fixtures services/<name>/test/fixtures.ts exports (imported when asked for: packages never import services). */
export async function fixturesOf<N extends FixtureService>(name: N): Promise<ServiceFixtures[N]> {
  const module = (await import(new URL(`../../../services/${name}/test/fixtures.ts`, import.meta.url).href)) as {
    fixtures: ServiceFixtures[N];
  };
  return module.fixtures;
}
