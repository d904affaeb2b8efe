// /openapi.json is a valid OpenAPI 3.1 document built from the routes' own schemas; /docs and /redoc load with
// all their assets from the gateway itself, behind the /api prefix and without it.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { RAISED_PROBLEM_CODES, STATUS_PROBLEM_CODES } from "@sca/problem";
import { z } from "zod";
import { pageSizePagination } from "../src/api/pagination.ts";
import { problemResponse } from "../src/api/problem-schema.ts";
import { defineRoute } from "../src/api/route.ts";
import { startTestGateway, type TestGateway } from "./harness.ts";

const widget = z.object({ id: z.uuid(), name: z.string() }).meta({ id: "Widget" });

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    routes: () => [
      defineRoute({
        method: "get",
        path: "/v1/test-teams/{team_id}/widgets",
        summary: "test: list widgets",
        tags: ["test"],
        operationId: "listWidgets",
        request: {
          params: z.object({ team_id: z.uuid() }),
          query: pageSizePagination.query({ defaultSize: 50, maxSize: 200 }),
        },
        responses: {
          200: { description: "A page of widgets", schema: pageSizePagination.envelope(widget) },
          404: problemResponse("No such team"),
        },
        handler: ({ query }) => ({ status: 200, body: pageSizePagination.page([], 0, query) }),
      }),
      defineRoute({
        method: "post",
        path: "/v1/test-teams/{team_id}/widgets",
        summary: "test: create a widget",
        tags: ["test"],
        operationId: "createWidget",
        request: { params: z.object({ team_id: z.uuid() }), body: z.object({ name: z.string().min(1).max(255) }) },
        responses: { 201: { description: "Created", schema: widget } },
        handler: ({ body }) => ({ status: 201, body: { id: "0191f2c4-8d2a-7c3e-9f10-1234567890ab", name: body.name } }),
      }),
    ],
  });
});
afterAll(async () => {
  await gw.close();
});

interface OpenApi {
  openapi: string;
  info: { version: string };
  servers: { url: string }[];
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name: string; in: string; schema: Record<string, unknown> }[];
        responses: Record<string, { content?: Record<string, unknown> }>;
        requestBody?: unknown;
      }
    >
  >;
  components: { schemas: Record<string, unknown> };
}

describe("/openapi.json", () => {
  let text: string;
  let doc: OpenApi;
  beforeAll(async () => {
    const res = await fetch(`${gw.origin}/api/openapi.json`);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    text = await res.text();
    doc = JSON.parse(text) as OpenApi;
  });

  it("is OpenAPI 3.1 with the API's schema version and the /api server", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("2.2.0");
    expect(doc.servers).toEqual([{ url: "/api" }]);
  });

  it("passes an OpenAPI validator", async () => {
    const config = await createConfig({
      rules: {
        struct: "error",
        "no-unresolved-refs": "error",
        "path-parameters-defined": "error",
        "operation-operationId-unique": "error",
        "operation-2xx-response": "error",
        "no-ambiguous-paths": "error",
      },
    });
    const problems = await lintFromString({ source: text, absoluteRef: "openapi.json", config });
    expect(problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(",")}`)).toEqual(
      [],
    );
    // The same validator does reject a broken document.
    const broken = { ...doc, paths: { "/x/{id}": { get: { responses: { 200: { description: 1 } } } } } };
    expect(
      (await lintFromString({ source: JSON.stringify(broken), absoluteRef: "broken.json", config })).length,
    ).toBeGreaterThan(0);
  });

  it("documents the health surface and the routes registered, from their schemas", () => {
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/health", "/health/ready", "/healthz", "/metrics", "/v1/test-teams/{team_id}/widgets"]),
    );
    const list = doc.paths["/v1/test-teams/{team_id}/widgets"]!.get!;
    expect(list.parameters!.map((p) => `${p.in}:${p.name}`)).toEqual(["path:team_id", "query:page", "query:page_size"]);
    expect(list.parameters!.find((p) => p.name === "page_size")!.schema).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 200,
      default: 50,
    });
    expect(Object.keys(list.responses)).toEqual(["200", "404", "422", "431", "default"]);
    expect(list.responses["404"]!.content).toEqual({
      "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } },
    });
    expect(doc.paths["/v1/test-teams/{team_id}/widgets"]!.post!.requestBody).toBeDefined();
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(["Problem", "Widget"]));
  });

  it("declares what the edge answers before a handler: 400/413/415 with a body, 429 where limited, 431 everywhere", () => {
    const create = doc.paths["/v1/test-teams/{team_id}/widgets"]!.post!;
    expect(Object.keys(create.responses)).toEqual(["201", "400", "413", "415", "422", "431", "default"]);
    for (const [path, operations] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(operations))
        expect([`${method} ${path}`, op.responses["431"]]).toEqual([`${method} ${path}`, expect.anything()]);
    expect(doc.paths["/auth/oauth/{provider}/authorize"]!.get!.responses["429"]).toBeDefined();
    expect(doc.paths["/auth/login"]!.post!.responses["429"]).toBeDefined();
  });

  it("shows the closed set of problem codes as the Problem's code enum, and answers with its members", async () => {
    const problem = doc.components.schemas.Problem as { properties: { code: { type: string; enum: string[] } } };
    const codes = problem.properties.code.enum;
    const everyGroup = [...Object.values(STATUS_PROBLEM_CODES), ...Object.values(RAISED_PROBLEM_CODES).flat()];
    expect([...codes].sort()).toEqual([...new Set(everyGroup)].sort());
    expect(codes).toEqual(
      expect.arrayContaining([
        "forbidden",
        "last-super-admin",
        "disk-pressure",
        "last_oauth_link",
        "demo_read_only",
        "oauth_provider_disabled",
      ]),
    );
    const answered = [
      await fetch(`${gw.origin}/api/v1/test-teams/not-a-uuid/widgets`),
      await fetch(`${gw.origin}/api/v1/test-teams/0191f2c4-8d2a-7c3e-9f10-1234567890ab/widgets`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{",
      }),
    ];
    expect(answered.map((r) => r.status)).toEqual([422, 400]);
    for (const res of answered) expect(codes).toContain(((await res.json()) as { code: string }).code);
  });

  it("states the API-key scope rule in the schema: one of org, team (team_id) or project (team_id, project_id)", () => {
    const body = doc.paths["/v1/api-keys"]!.post!.requestBody as {
      content: {
        "application/json": { schema: { oneOf: { properties: Record<string, unknown>; required: string[] }[] } };
      };
    };
    const variants = body.content["application/json"].schema.oneOf;
    expect(variants.map((v) => [v.properties.scope, [...v.required].sort()])).toEqual([
      [{ type: "string", const: "org" }, ["name", "scope"]],
      [{ type: "string", const: "team" }, ["name", "scope", "team_id"]],
      [{ type: "string", const: "project" }, ["name", "project_id", "scope", "team_id"]],
    ]);
  });

  it("leaves the pages themselves out", () => {
    for (const p of ["/docs", "/redoc", "/openapi.json"]) expect(doc.paths[p]).toBeUndefined();
  });
});

/** Every src/href/url/spec-url a page references, resolved as a browser would against the page's URL. */
function references(html: string, pageUrl: string): URL[] {
  return [...html.matchAll(/(?:src|href|spec-url)="([^"]+)"|url: "([^"]+)"/g)].map(
    (m) => new URL(m[1] ?? m[2]!, pageUrl),
  );
}

describe("/docs and /redoc", () => {
  const pages = [
    ["/api/docs", "/api"],
    ["/api/docs/", "/api"],
    ["/docs", ""],
    ["/docs/", ""],
    ["/api/redoc", "/api"],
    ["/api/redoc/", "/api"],
    ["/redoc", ""],
  ] as const;

  it.each(pages)("%s loads, and every asset it references loads from the same prefix", async (path, prefix) => {
    const pageUrl = `${gw.origin}${path}`;
    const res = await fetch(pageUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).not.toMatch(/(src|href|url)[=:] ?"(https?:)?\/\//); // nothing from a CDN
    const refs = references(html, pageUrl);
    expect(refs.length).toBeGreaterThanOrEqual(2);
    expect(refs.map((u) => u.pathname)).toContain(`${prefix}/openapi.json`);
    for (const url of refs) {
      expect(url.origin).toBe(gw.origin);
      expect(url.pathname.startsWith(`${prefix}/`)).toBe(true);
      const asset = await fetch(url);
      expect([url.pathname, asset.status]).toEqual([url.pathname, 200]);
      const type = asset.headers.get("content-type") ?? "";
      if (url.pathname.endsWith(".js")) expect(type).toMatch(/javascript/);
      if (url.pathname.endsWith(".css")) expect(type).toMatch(/^text\/css/);
      if (url.pathname.endsWith(".png")) expect(type).toBe("image/png");
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  });

  it("serves the Swagger UI and Redoc bundles themselves", async () => {
    expect(await (await fetch(`${gw.origin}/api/docs/swagger-ui-bundle.js`)).text()).toContain("SwaggerUIBundle");
    expect(await (await fetch(`${gw.origin}/api/redoc/redoc.standalone.js`)).text()).toContain("Redoc");
  });

  it("serves only the assets the pages use", async () => {
    for (const path of [
      "/api/docs/index.html",
      "/api/docs/package.json",
      "/api/docs/..%2Fpackage.json",
      "/api/redoc/redoc.lib.js",
    ]) {
      expect([path, (await fetch(`${gw.origin}${path}`)).status]).toEqual([path, 404]);
    }
  });
});
