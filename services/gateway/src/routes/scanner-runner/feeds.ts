// The enrichment feeds of the scanner-runner (EnrichmentFeedService): the three admin status panels the spec lists
// (known-exploited feed, end-of-life dataset, malicious-package snapshot; super_admin, 404 to anyone else), the OSV
// advisory database's (ours, issue 27) and the
// deployment's EPSS availability (any authenticated caller). The spec leaves these paths out; ours are documented
// in docs/enrichment-feeds.md.
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import {
  advisoryDatabaseJson,
  advisoryDatabaseSchema,
  endOfLifeDatasetJson,
  endOfLifeDatasetSchema,
  epssAvailabilityJson,
  epssAvailabilitySchema,
  knownExploitedFeedJson,
  knownExploitedFeedSchema,
  maliciousSnapshotJson,
  maliciousSnapshotSchema,
} from "./views.ts";

const hidden = problemResponse("The caller is not a super_admin (the admin surface is not shown)");

export function feedRoutes(ctx: GatewayContext): Route[] {
  const feeds = ctx.clients["scanner-runner"].feeds;
  return [
    defineRoute({
      method: "get",
      path: "/v1/admin/kev/status",
      summary: "The known-exploited (KEV) feed's status panel",
      description:
        "Its last refresh (KEV_FEED_URL, daily), the catalog held and what the last sync listed and delisted.",
      tags: ["admin: feeds"],
      operationId: "adminKnownExploitedFeedStatus",
      auth: ctx.auth.route("super_admin"),
      responses: { 200: { description: "The panel", schema: knownExploitedFeedSchema }, 404: hidden },
      handler: async ({ call }) => ({
        status: 200,
        body: knownExploitedFeedJson(await feeds.getKnownExploitedFeedStatus({}, call)),
      }),
    }),
    defineRoute({
      method: "get",
      path: "/v1/admin/eol/status",
      summary: "The end-of-life dataset's status panel",
      description: "The endoflife.date dataset held (vendored, EOL_SNAPSHOT_PATH or live) and its last live sweep.",
      tags: ["admin: feeds"],
      operationId: "adminEndOfLifeDatasetStatus",
      auth: ctx.auth.route("super_admin"),
      responses: { 200: { description: "The panel", schema: endOfLifeDatasetSchema }, 404: hidden },
      handler: async ({ call }) => ({
        status: 200,
        body: endOfLifeDatasetJson(await feeds.getEndOfLifeDatasetStatus({}, call)),
      }),
    }),
    defineRoute({
      method: "get",
      path: "/v1/admin/malicious/status",
      summary: "The malicious-package snapshot's status panel",
      description: "The OSV MAL- snapshot held, its date and staleness (MALICIOUS_SNAPSHOT_STALE_DAYS), its rebuilds.",
      tags: ["admin: feeds"],
      operationId: "adminMaliciousSnapshotStatus",
      auth: ctx.auth.route("super_admin"),
      responses: { 200: { description: "The panel", schema: maliciousSnapshotSchema }, 404: hidden },
      handler: async ({ call }) => ({
        status: 200,
        body: maliciousSnapshotJson(await feeds.getMaliciousSnapshotStatus({}, call)),
      }),
    }),
    defineRoute({
      method: "get",
      path: "/v1/admin/osv/status",
      summary: "The OSV advisory database's status panel",
      description:
        "Its last import (VULNDB_REPOSITORY, every VULNDB_REFRESH_HOURS): source, version, counts and the advisories skipped.",
      tags: ["admin: feeds"],
      operationId: "adminAdvisoryDatabaseStatus",
      auth: ctx.auth.route("super_admin"),
      responses: { 200: { description: "The panel", schema: advisoryDatabaseSchema }, 404: hidden },
      handler: async ({ call }) => ({
        status: 200,
        body: advisoryDatabaseJson(await feeds.getAdvisoryDatabaseStatus({}, call)),
      }),
    }),
    defineRoute({
      method: "get",
      path: "/v1/gate-policies/epss-availability",
      summary: "Whether this deployment has EPSS scores",
      description: "What a gate's epss_threshold can rely on: scores held, when they were last fetched, the refresh.",
      tags: ["gate policies"],
      operationId: "epssAvailability",
      auth: ctx.auth.route("caller"),
      responses: { 200: { description: "The deployment's EPSS data", schema: epssAvailabilitySchema } },
      handler: async ({ call }) => ({
        status: 200,
        body: epssAvailabilityJson(await feeds.getEpssAvailability({}, call)),
      }),
    }),
  ];
}
