// StatusPanelService: the health panel (every probe in parallel, each with its deadline; the last failure of each
// kept since start) and the disk panel (the artefact store's volume judged by the DISK_PRESSURE_* limits, the size of
// the scanner-runner's advisory database and of the whole database, Redis's memory, the backups' volume).
// super_admin only; anyone else NotFound.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ArtefactStore } from "@sca/artefacts";
import { column, rawQuery } from "@sca/db";
import {
  DiskItemSchema,
  GetDatabaseVersionResponseSchema,
  GetDiskPanelResponseSchema,
  GetHealthPanelResponseSchema,
  HealthComponentSchema,
  StatusPanelService,
} from "@sca/proto/sca/admin/v1/status_panels_pb.ts";
import type { Redis } from "@sca/redis";
import { requireCaller, requireSuperAdmin } from "@sca/rpc";
import { within } from "@sca/runtime/within";
import { PROBE_TIMEOUT_MS, type Probe } from "../clients/health-probes.ts";
import { underPressure, type DiskLimits } from "../domain/disk-pressure.ts";
import { countEntriesBefore } from "../store/audit-log.ts";
import type { BackupDirectory } from "../store/backup-directory.ts";

export interface StatusPanelDeps {
  orm: MikroORM;
  redis: Redis;
  store: ArtefactStore;
  /** Where the store keeps its objects, as the panel names it (a directory or a bucket). */
  storeLocation: string;
  directory: BackupDirectory;
  /** The scanner-runner's schema, where its advisory database (the OSV advisories it imports) is kept. */
  scannerSchema: string;
  probes: Probe[];
  /** Components that are not set up here (the SMTP relay without SMTP_HOST): shown, not probed. */
  notConfigured: Pick<Probe, "name" | "kind">[];
  limits: DiskLimits;
  /** AUDIT_LOG_RETENTION_DAYS. */
  auditRetentionDays: number;
}

const big = (n: number | undefined) => (n === undefined ? undefined : BigInt(Math.max(0, Math.round(n))));

export function registerStatusPanelService(router: ConnectRouter, deps: StatusPanelDeps): void {
  const lastErrors = new Map<string, { error: string; at: Date }>();

  async function probe(p: Probe) {
    const started = performance.now();
    try {
      const version = await within(p.run(), PROBE_TIMEOUT_MS);
      return { ...p, state: "up", latencyMs: Math.round(performance.now() - started), version };
    } catch (err) {
      // A sentence about the part, never a stack; kept for the panel until a later failure replaces it.
      lastErrors.set(p.name, { error: String((err as Error)?.message ?? err).slice(0, 300), at: new Date() });
      return { ...p, state: "down", latencyMs: undefined, version: "" };
    }
  }

  async function measured<T>(read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await within(read(), PROBE_TIMEOUT_MS);
    } catch {
      return undefined;
    }
  }

  const item = (
    name: string,
    location: string,
    usage: { usedBytes?: number; freeBytes?: number; totalBytes?: number } | undefined,
    note: string,
  ) => {
    const judged = usage?.totalBytes !== undefined && usage.freeBytes !== undefined;
    return create(DiskItemSchema, {
      name,
      location,
      state: !usage
        ? "unknown"
        : judged && underPressure(usage as { totalBytes: number; freeBytes: number }, deps.limits)
          ? "pressure"
          : "ok",
      usedBytes: big(usage?.usedBytes),
      freeBytes: big(usage?.freeBytes),
      totalBytes: big(usage?.totalBytes),
      hardLimitPercent: deps.limits.hardLimitPercent,
      minFreeBytes: BigInt(deps.limits.minFreeBytes),
      note,
    });
  };

  router.service(StatusPanelService, {
    async getHealthPanel(_req, ctx: HandlerContext) {
      requireSuperAdmin(ctx);
      const [results, pastRetention] = await Promise.all([
        Promise.all(deps.probes.map(probe)),
        measured(() =>
          countEntriesBefore(deps.orm.em.fork(), new Date(Date.now() - deps.auditRetentionDays * 86_400_000)),
        ),
      ]);
      const components = [
        ...results.map((r) => ({
          name: r.name,
          kind: r.kind,
          state: r.state,
          latencyMs: r.latencyMs,
          version: r.version,
        })),
        ...deps.notConfigured.map((c) => ({ ...c, state: "not_configured", latencyMs: undefined, version: "" })),
      ].map((c) => {
        const last = lastErrors.get(c.name);
        return create(HealthComponentSchema, {
          ...c,
          lastError: last?.error ?? "",
          lastErrorAt: last ? timestampFromDate(last.at) : undefined,
        });
      });
      return create(GetHealthPanelResponseSchema, {
        components,
        updatedAt: timestampFromDate(new Date()),
        auditRetention: {
          retentionDays: deps.auditRetentionDays,
          entriesPastRetention: pastRetention === undefined ? undefined : BigInt(pastRetention),
        },
      });
    },

    async getDatabaseVersion(_req, ctx: HandlerContext) {
      requireCaller(ctx);
      const [row] = await rawQuery(deps.orm.em.fork(), "select version() as v", [], { v: column.text });
      return create(GetDatabaseVersionResponseSchema, {
        version: row?.v.replace(/^PostgreSQL /, "").split(" on ")[0] ?? "",
      });
    },

    async getDiskPanel(_req, ctx: HandlerContext) {
      requireSuperAdmin(ctx);
      const [store, scanner, database, cache, backups] = await Promise.all([
        measured(() => deps.store.usage()),
        measured(async () => {
          // Tables with their indexes and TOAST; no row while the schema does not exist (never migrated).
          const [row] = await rawQuery(
            deps.orm.em.fork(),
            `select coalesce(sum(pg_total_relation_size(c.oid)), 0) as bytes
               from pg_namespace n left join pg_class c on c.relnamespace = n.oid and c.relkind in ('r', 'm')
              where n.nspname = ? group by n.oid`,
            [deps.scannerSchema],
            { bytes: column.integer },
          );
          return row;
        }),
        measured(async () => {
          const [row] = await rawQuery(
            deps.orm.em.fork(),
            "select current_database() as name, pg_database_size(current_database()) as bytes",
            [],
            { name: column.text, bytes: column.integer },
          );
          return row!;
        }),
        measured(async () => {
          const info = await deps.redis.info("memory");
          const used = Number(/used_memory:(\d+)/.exec(info)?.[1] ?? NaN);
          const max = Number(/maxmemory:(\d+)/.exec(info)?.[1] ?? 0);
          return { used, max };
        }),
        measured(() => deps.directory.usage()),
      ]);
      const items = [
        item(
          "workspace",
          deps.storeLocation,
          store && {
            usedBytes: store.totalBytes - store.freeBytes,
            freeBytes: store.freeBytes,
            totalBytes: store.totalBytes,
          },
          "The artefact store (uploads, scan artefacts): new scans are refused past the DISK_PRESSURE_* limits.",
        ),
        item(
          "scanner_database",
          deps.scannerSchema,
          scanner && { usedBytes: scanner.bytes },
          "The scanner-runner's advisory database, its PostgreSQL schema as PostgreSQL counts " +
            "it; its volume's free space is the database host's.",
        ),
        item(
          "database",
          database?.name ?? "",
          database && { usedBytes: database.bytes },
          "The portal's database as PostgreSQL counts it; its volume's free space is the database host's.",
        ),
        item(
          "cache",
          "redis",
          cache && {
            usedBytes: cache.used,
            totalBytes: cache.max > 0 ? cache.max : undefined,
            freeBytes: cache.max > 0 ? cache.max - cache.used : undefined,
          },
          "Redis's memory; no total when it has no maxmemory.",
        ),
        item(
          "backups",
          deps.directory.root,
          backups && { usedBytes: backups.backupBytes, freeBytes: backups.freeBytes, totalBytes: backups.totalBytes },
          "The backups under BACKUP_DIR (used: their bytes) and the space of their volume.",
        ),
      ];
      return create(GetDiskPanelResponseSchema, { items, collectedAt: timestampFromDate(new Date()) });
    },
  });
}
