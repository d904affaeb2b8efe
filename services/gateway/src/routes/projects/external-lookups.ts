// Lookups of packages and advisories in the local advisory database (docs/findings.md, "External lookups"): 404 when
// EXTERNAL_PACKAGE_LOOKUP_ENABLED is false (projects answers so).
import { z } from "zod";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

const TAGS = ["external lookups"];
const ECOSYSTEMS = ["cargo", "go", "maven", "npm", "nuget", "pypi"] as const;

const packageSchema = z
  .object({
    advisory_count: z.number().int(),
    advisory_ids: z.array(z.string()),
    ecosystem: z.string(),
    found: z.boolean(),
    homepage_url: z.string().nullable(),
    internal_projects: z.array(z.object({ project_id: z.uuid(), name: z.string(), versions: z.array(z.string()) })),
    licenses: z.array(z.string()),
    name: z.string(),
    purl: z.string(),
    source_repo_url: z.string().nullable(),
    version: z.string().nullable(),
  })
  .meta({ id: "ExternalPackage" });

const advisorySchema = z
  .object({
    advisory_id: z.string(),
    aliases: z.array(z.string()),
    cvss3_score: z.number().nullable(),
    cvss3_vector: z.string().nullable(),
    found: z.boolean(),
    title: z.string().nullable(),
  })
  .meta({ id: "ExternalAdvisory" });

export function externalLookupRoutes(ctx: GatewayContext): Route[] {
  const findings = ctx.clients.projects.findings;
  const caller = ctx.auth.route("caller");
  return [
    defineRoute({
      method: "get",
      path: "/v1/external-packages",
      summary: "Look a package up in the advisory database",
      description:
        "The vulnerabilities the local advisory database holds for the package (any version), whether or not a " +
        "project holds it, and the projects the caller may read whose newest scan holds it. homepage_url and " +
        "source_repo_url are null (no registry metadata is stored); version is the highest version a readable " +
        "project holds, null when none.",
      tags: TAGS,
      operationId: "lookupExternalPackage",
      auth: caller,
      request: {
        query: z.object({
          ecosystem: z
            .string()
            .max(64)
            .meta({ description: ECOSYSTEMS.join(", ") }),
          name: z.string().min(1).max(255),
        }),
      },
      responses: {
        200: { description: "The package", schema: packageSchema },
        404: problemResponse("External package lookup is disabled"),
        422: problemResponse("Unknown ecosystem or bad name"),
      },
      handler: async ({ query, call }) => {
        const r = await findings.lookupExternalPackage({ ecosystem: query.ecosystem, name: query.name }, call);
        return {
          status: 200,
          body: {
            advisory_count: r.advisoryIds.length,
            advisory_ids: r.advisoryIds,
            ecosystem: r.ecosystem,
            found: r.found,
            homepage_url: null,
            internal_projects: r.internalProjects.map((p) => ({
              project_id: p.projectId,
              name: p.name,
              versions: p.versions,
            })),
            licenses: r.licenses,
            name: r.name,
            purl: r.purl,
            source_repo_url: null,
            version: r.version || null,
          },
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/external-advisories/{advisory_id}",
      summary: "Look an advisory up by CVE or GHSA id (or any alias)",
      description:
        "By canonical id or any alias, ignoring case; found is false for an id the advisory database does not know.",
      tags: TAGS,
      operationId: "lookupExternalAdvisory",
      auth: caller,
      request: { params: z.object({ advisory_id: z.string().min(1).max(64) }) },
      responses: {
        200: { description: "The advisory", schema: advisorySchema },
        404: problemResponse("External package lookup is disabled"),
      },
      handler: async ({ params, call }) => {
        const r = await findings.lookupExternalAdvisory({ advisoryId: params.advisory_id }, call);
        return {
          status: 200,
          body: {
            advisory_id: r.advisoryId,
            aliases: r.aliases,
            cvss3_score: r.cvss3Score ?? null,
            cvss3_vector: r.cvss3Vector || null,
            found: r.found,
            title: r.found ? r.title : null,
          },
        };
      },
    }),
  ];
}
