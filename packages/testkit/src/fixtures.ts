// What a service offers the tests of other services, through the test kit: a test of the gateway needs a user in
// identity's tables or an access token as a login would issue it, and must not import identity's code to get them.
// Each service that offers fixtures implements its entry in services/<name>/test/fixtures.ts; tests ask for them by
// name (fixturesOf), so the only door between services' tests is this one.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { KafkaClient } from "@sca/kafka";
import type { RecordScanMatchesRequestSchema } from "@sca/proto/sca/projects/v1/vulnerability_matches_pb.ts";

/** The vulnerabilities and verdicts of a scan's package versions, as RecordScanMatches takes them. */
export type ScanMatches = Pick<MessageInitShape<typeof RecordScanMatchesRequestSchema>, "vulnerabilities" | "verdicts">;

/** What the projects fixture's portfolio writes. */
export interface PortfolioSeed {
  teams: { id: string; organizationId: string | null }[];
  projects: number;
  componentsPerProject: number;
  findingsPerProject: number;
}

/** The scanner-runner's matcher over an advisory set (a benchmark's view of it). */
export interface VulnerabilityMatcherFixture {
  /** The directory the advisories were read from (laid out as OSV-Scanner reads it too). */
  advisoriesDir: string;
  advisoryCount: number;
  packageCount: number;
  /** Milliseconds the index took to build from the parsed advisories. */
  buildMs: number;
  /** A purl per package the advisories affect, at a version where one of them starts (else 0.0.1). */
  samplePurls(): string[];
  /** The verdict of one package version (OSV's ecosystem and name, as @sca/purl-package names them). */
  match(pkg: {
    ecosystem: string;
    name: string;
    version: string;
  }): { assessed: true; vulnerabilities: readonly { vulnerabilityId: string }[] } | { assessed: false };
  /** Forgets the verdicts kept so far: the next matches take the cold path a new database version takes. */
  clearVerdicts(): void;
  /** The verdicts of `purls` as a scan records them (no EPSS or KEV data), and how many findings they make. */
  scanMatches(purls: readonly string[]): ScanMatches & { findingCount: number };
}

/** A sandbox workspace holding a source tree, as a source scan's stages see it. */
export interface SandboxTreeFixture {
  /** The tree's directory. */
  dir: string;
  /** cdxgen over the tree with the flags, sandbox and environment a source scan uses; answers the SBOM. */
  cdxgen(opts: { bin: string; timeoutMs: number; memoryMb: number }): Promise<Buffer>;
  /** The scancode stage over the tree as a source scan runs it, its content cache in `orm`'s schema. */
  licenses(
    orm: MikroORM,
    opts: { bin: string; timeoutMs: number; memoryMb: number; maxFiles: number; maxDetections: number },
  ): Promise<{ status: string; message: string; fileCount: number; scannedFileCount: number; detectionCount: number }>;
  remove(): Promise<void>;
}

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
    /** The whole log checked as a collector would: every position, every link and every hash, from the first. */
    auditChain(orm: MikroORM): Promise<{ ok: boolean; count: number; reason?: string }>;
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
    /**
     * A portfolio written straight into projects' tables with COPY (the dashboards' and backup benchmarks, shaped as
     * ingestion and the runner's matches write it): `projects` projects
     * spread over the teams, each with one succeeded snapshot of `componentsPerProject` components (drawn from a
     * shared pool, so one component is held by many projects; a dependency tree four wide under the root) and
     * `findingsPerProject` open findings over a shared pool of vulnerabilities (severities mixed, some known
     * exploited). Nothing is counted: the dashboards' figures are left to projects' daily job.
     */
    portfolio(orm: MikroORM, opts: PortfolioSeed): Promise<{ projectIds: string[]; packageNames: string[] }>;
    /**
     * A statement on projects' tables, as one of its stages would make it: in a transaction of its own (projects
     * refuses a write to a component page's tables outside one: ADR 12). Answers the rows it returns.
     */
    write(orm: MikroORM, sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
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
    /**
     * Where a started runner's start-up work stands: its first advisory import done, and the package names still
     * waiting to be re-matched against what it imported.
     */
    startUpProgress(orm: MikroORM): Promise<{ imported: boolean; rematchPending: number }>;
    /** The runner's matcher over its vendored advisories; `keep` picks them by index (an older database's subset). */
    vulnerabilityMatcher(opts?: { keep?: (index: number) => boolean }): Promise<VulnerabilityMatcherFixture>;
    /** The purls of the components the runner reads from this SBOM (those with one). */
    sbomPurls(sbom: Uint8Array): string[];
    /**
     * An `sbom` scan's job onto the runner's manual lane (topics under `kafka`'s prefix), as the scan-orchestrator's
     * relay publishes it.
     */
    publishSbomJob(
      kafka: KafkaClient,
      job: { scanId: string; projectId: string; sbom: { key: string; sizeBytes: bigint; sha256: string } },
    ): Promise<void>;
    /** Empties the scancode stage's content cache: the next stage reads every file again. */
    forgetScancodeResults(orm: MikroORM): Promise<void>;
    /** A sandbox workspace holding a copy of the directory `source`, or the files it names by name. */
    sandboxTree(source: string | Record<string, Uint8Array>): Promise<SandboxTreeFixture>;
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
