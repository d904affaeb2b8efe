// The enrichment feeds of the scanner-runner (EnrichmentFeedService): the three admin status panels the spec lists
// (known-exploited feed, end-of-life dataset, malicious-package snapshot; super_admin, 404 to anyone else), the OSV
// advisory database's (ours, issue 27) and the
// deployment's EPSS availability (any authenticated caller). The spec leaves these paths out; ours are documented
// in docs/enrichment-feeds.md.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
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

/** Each feed panel's path segment and name, for its refresh trigger (ours: the spec names no path). */
const REFRESHABLE = [
  { feed: "kev", name: "known-exploited (KEV) feed" },
  { feed: "eol", name: "end-of-life dataset" },
  { feed: "malicious", name: "malicious-package snapshot" },
  { feed: "osv", name: "OSV advisory database" },
] as const;

const refreshRequestedSchema = z
  .object({
    feed: z.enum(REFRESHABLE.map((r) => r.feed)),
    requested_at: z.string().meta({ description: "The panel's last_attempt_at reaches it once the refresh ran" }),
  })
  .meta({ id: "FeedRefreshRequested" });

function refreshRoutes(ctx: GatewayContext): Route[] {
  const feeds = ctx.clients["scanner-runner"].feeds;
  return REFRESHABLE.map(({ feed, name }) =>
    defineRoute({
      method: "post",
      path: `/v1/admin/${feed}/refresh`,
      summary: `Refresh the ${name} now`,
      description:
        `super_admin. Starts a refresh of the ${name} whether due or not and answers at once; its outcome is on ` +
        `GET /v1/admin/${feed}/status. The feed's keys still hold (a refresh they turn off is recorded as skipped), ` +
        "and a refresh already running is not started twice.",
      tags: ["admin: feeds"],
      operationId: `adminRefresh${feed[0]!.toUpperCase()}${feed.slice(1)}Feed`,
      auth: ctx.auth.route("super_admin"),
      responses: { 202: { description: "The refresh started", schema: refreshRequestedSchema }, 404: hidden },
      handler: async ({ call }) => {
        const answer = await feeds.refreshFeed({ feed }, call);
        return {
          status: 202,
          body: { feed, requested_at: timestampDate(answer.requestedAt!).toISOString() },
        };
      },
    }),
  );
}

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
    ...refreshRoutes(ctx),
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
