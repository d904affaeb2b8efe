// The health and disk panels (StatusPanelService; docs/operations.md): super_admin, 404 to anyone else.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { DiskItem, HealthComponent } from "@sca/proto/sca/admin/v1/status_panels_pb.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);
const bytes = (n: bigint | undefined) => (n === undefined ? null : Number(n));
const hidden = problemResponse("The caller is not a super_admin (the admin surface is not shown)");

const healthComponentSchema = z
  .object({
    name: z.string().meta({ description: "identity, ..., postgresql, kafka, redis, artefact_store, smtp" }),
    kind: z.enum(["service", "database", "queue", "cache", "store", "mail", "tool"]),
    state: z.enum(["up", "down", "not_configured"]),
    latency_ms: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The probe's round trip; null when it did not answer" }),
    version: z.string().nullable().meta({ description: "What the part says of its version, when it says" }),
    last_error: z.string().nullable().meta({ description: "The last failed probe since admin started" }),
    last_error_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "HealthComponent" });

const diskItemSchema = z
  .object({
    name: z.enum(["workspace", "scanner_database", "database", "cache", "backups"]),
    location: z.string().nullable(),
    state: z.enum(["ok", "pressure", "unknown"]),
    used_bytes: z.number().int().nullable(),
    free_bytes: z.number().int().nullable(),
    total_bytes: z.number().int().nullable(),
    hard_limit_percent: z.number().int().meta({ description: "DISK_PRESSURE_HARD_LIMIT_PERCENT" }),
    min_free_bytes: z.number().int().meta({ description: "DISK_PRESSURE_MIN_FREE_BYTES" }),
    note: z.string(),
  })
  .meta({ id: "DiskItem" });

const componentJson = (c: HealthComponent): z.output<typeof healthComponentSchema> => ({
  name: c.name,
  kind: c.kind as z.output<typeof healthComponentSchema>["kind"],
  state: c.state as z.output<typeof healthComponentSchema>["state"],
  latency_ms: c.latencyMs ?? null,
  version: c.version || null,
  last_error: c.lastError || null,
  last_error_at: iso(c.lastErrorAt),
});

const diskItemJson = (d: DiskItem): z.output<typeof diskItemSchema> => ({
  name: d.name as z.output<typeof diskItemSchema>["name"],
  location: d.location || null,
  state: d.state as z.output<typeof diskItemSchema>["state"],
  used_bytes: bytes(d.usedBytes),
  free_bytes: bytes(d.freeBytes),
  total_bytes: bytes(d.totalBytes),
  hard_limit_percent: d.hardLimitPercent,
  min_free_bytes: Number(d.minFreeBytes),
  note: d.note,
});

export function statusPanelRoutes(ctx: GatewayContext): Route[] {
  const panels = ctx.clients.admin.panels;
  const auth = ctx.auth.route("super_admin");
  return [
    defineRoute({
      method: "get",
      path: "/v1/admin/health",
      summary: "The health panel",
      description:
        "Every domain service (its readiness), PostgreSQL, Kafka, Redis, the artefact store and the SMTP relay, each " +
        "probed now with a 2 s deadline: state, latency, version and the last error since admin started; and the " +
        "count of audit entries older than AUDIT_LOG_RETENTION_DAYS (the log is append-only: nothing is deleted).",
      tags: ["admin: status"],
      operationId: "adminHealthPanel",
      auth,
      responses: {
        200: {
          description: "The panel",
          schema: z
            .object({
              components: z.array(healthComponentSchema),
              updated_at: z.iso.datetime(),
              audit_retention: z
                .object({
                  retention_days: z.number().int().meta({ description: "AUDIT_LOG_RETENTION_DAYS" }),
                  entries_past_retention: z.number().int().nullable().meta({
                    description: "Audit entries older than that (kept: the log is append-only); null when unknown",
                  }),
                })
                .meta({ id: "AuditRetention" }),
            })
            .meta({ id: "HealthPanel" }),
        },
        404: hidden,
      },
      handler: async ({ call }) => {
        const panel = await panels.getHealthPanel({}, call);
        return {
          status: 200,
          body: {
            components: panel.components.map(componentJson),
            updated_at: iso(panel.updatedAt)!,
            audit_retention: {
              retention_days: panel.auditRetention?.retentionDays ?? 0,
              entries_past_retention:
                panel.auditRetention?.entriesPastRetention === undefined
                  ? null
                  : Number(panel.auditRetention.entriesPastRetention),
            },
          },
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/admin/disk",
      summary: "The disk panel",
      description:
        "The workspace (the artefact store's volume, judged by the DISK_PRESSURE_* limits new scans are refused at), " +
        "the scanner database volume, the database, the cache and the backups: used, free and total bytes.",
      tags: ["admin: status"],
      operationId: "adminDiskPanel",
      auth,
      responses: {
        200: {
          description: "The panel",
          schema: z
            .object({ items: z.array(diskItemSchema), collected_at: z.iso.datetime() })
            .meta({ id: "DiskPanel" }),
        },
        404: hidden,
      },
      handler: async ({ call }) => {
        const panel = await panels.getDiskPanel({}, call);
        return { status: 200, body: { items: panel.items.map(diskItemJson), collected_at: iso(panel.collectedAt)! } };
      },
    }),
  ];
}
