// About (the spec's "About" and "Notice document"): the deployment's identity (SERVICE_VERSION, SERVICE_COMMIT,
// SERVICE_BUILT_AT, the PostgreSQL and advisory database versions) and the license notices of what it ships, which
// scripts/license-notices.ts generated at build time into NOTICES_DIR; each notice is served verbatim as text/plain.
// Any authenticated caller. A version a service cannot tell now is null: the page still answers.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import { ProblemError } from "@sca/problem";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

const NOTICE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;

const noticeSchema = z
  .object({
    id: z.string().meta({ description: "What GET /v1/about/notices/{document_id} takes" }),
    name: z.string(),
    version: z.string(),
    license: z.string().meta({ description: "The package's declared license (empty for a tool)" }),
    kind: z.enum(["npm", "tool"]),
  })
  .meta({ id: "LicenseNotice" });

type Notice = z.output<typeof noticeSchema>;

const aboutSchema = z
  .object({
    version: z.string().meta({ description: "SERVICE_VERSION" }),
    commit: z.string().meta({ description: "SERVICE_COMMIT" }),
    built_at: z.string().meta({ description: "SERVICE_BUILT_AT" }),
    database_version: z.string().nullable().meta({ description: "The PostgreSQL server's version" }),
    advisory_database_version: z.string().nullable().meta({ description: "The advisories' version" }),
    advisories_imported_at: z.iso.datetime().nullable(),
    notices: z.array(noticeSchema),
    total: z.number().int(),
  })
  .meta({ id: "About" });

export function aboutRoutes(ctx: GatewayContext): Route[] {
  const dir = ctx.config.NOTICES_DIR;
  let index: Promise<Notice[]> | undefined;
  // Read once: the notices are fixed for the life of a build. Without them (never generated) the list is empty.
  const notices = () =>
    (index ??= readFile(join(dir, "index.json"), "utf8")
      .then((text) => (JSON.parse(text) as { notices: Notice[] }).notices)
      .catch(() => []));
  const quietly = <T>(work: Promise<T>) => work.catch(() => undefined);
  return [
    defineRoute({
      method: "get",
      path: "/v1/about",
      summary: "The deployment's identity and its license notices",
      description:
        "SERVICE_VERSION, SERVICE_COMMIT, SERVICE_BUILT_AT, the PostgreSQL and advisory database versions (null when " +
        "their service does not answer now) and every license notice of what the portal ships (npm packages as the " +
        "lockfile resolves them, the scanner tools), generated at build time.",
      tags: ["about"],
      operationId: "about",
      auth: ctx.auth.route("caller"),
      responses: { 200: { description: "About", schema: aboutSchema } },
      handler: async ({ call }) => {
        const [database, advisories, list] = await Promise.all([
          quietly(ctx.clients.admin.panels.getDatabaseVersion({}, call)),
          quietly(ctx.clients["scanner-runner"].feeds.getAdvisoryDatabaseVersion({}, call)),
          notices(),
        ]);
        return {
          status: 200,
          body: {
            version: ctx.config.SERVICE_VERSION,
            commit: ctx.config.SERVICE_COMMIT,
            built_at: ctx.config.SERVICE_BUILT_AT,
            database_version: database?.version || null,
            advisory_database_version: advisories?.databaseVersion || null,
            advisories_imported_at: advisories?.lastSucceededAt
              ? timestampDate(advisories.lastSucceededAt).toISOString()
              : null,
            notices: list,
            total: list.length,
          },
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/about/notices/{document_id}",
      summary: "One license notice, verbatim",
      description: "The license text(s) the package or tool ships, exactly as shipped, as text/plain.",
      tags: ["about"],
      operationId: "aboutNotice",
      auth: ctx.auth.route("caller"),
      request: { params: z.object({ document_id: z.string().min(1).max(255) }) },
      responses: {
        200: { description: "The notice", schema: z.string(), contentType: "text/plain" },
        404: problemResponse("No such notice"),
      },
      handler: async ({ params }) => {
        const known = NOTICE_ID.test(params.document_id) && (await notices()).some((n) => n.id === params.document_id);
        const text = known ? await readFile(join(dir, `${params.document_id}.txt`), "utf8").catch(() => null) : null;
        if (text === null) throw ProblemError.notFound("No such notice.");
        return { status: 200, body: text, headers: { "Content-Type": "text/plain; charset=utf-8" } };
      },
    }),
  ];
}
