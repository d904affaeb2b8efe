// /openapi.json, /docs (Swagger UI) and /redoc, served from the npm packages (no CDN). The pages use relative
// URLs so they work behind the prefix (/api/docs, as browsers see them) and without it (/docs); a trailing
// slash, which moves the browser's base one level down, is allowed for.
import { createRequire } from "node:module";
import path from "node:path";
import type { Request, RequestHandler } from "express";
import type { RouteRegistry } from "../api/route-registry.ts";

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = path.dirname(require.resolve("swagger-ui-dist/package.json"));
const REDOC_BUNDLE_DIR = path.dirname(require.resolve("redoc"));

// Only the files the page loads are served, not everything the package ships.
const SWAGGER_ASSETS = new Set(["swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png", "favicon-16x16.png"]);
// `root` matters: the packages sit under node_modules/.pnpm, and `send` refuses absolute paths with dot-segments.
const fromDir = (root: string) => ({ root, maxAge: "1d" });

const TITLE = "Software Composition Analysis Portal API";

/** "../" when the browser's URL ends with a slash (`/api/docs/`), so relative links resolve as from `/api/docs`. */
function up(req: Request): string {
  return req.originalUrl.split("?")[0]!.endsWith("/") ? "../" : "";
}

/** A page titled for the API; `head` and `body` are its own lines, indented. */
function page(head: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${TITLE}</title>
${head}
</head>
<body>
${body}
</body>
</html>
`;
}

function swaggerPage(req: Request): string {
  const base = up(req);
  return page(
    `  <link rel="stylesheet" href="${base}docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="${base}docs/favicon-32x32.png" sizes="32x32">`,
    `  <div id="swagger-ui"></div>
  <script src="${base}docs/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: "${base}openapi.json", dom_id: "#swagger-ui", deepLinking: true });
  </script>`,
  );
}

function redocPage(req: Request): string {
  const base = up(req);
  return page(
    "  <style>body { margin: 0; padding: 0; }</style>",
    `  <redoc spec-url="${base}openapi.json"></redoc>
  <script src="${base}redoc/redoc.standalone.js"></script>`,
  );
}

const html =
  (page: (req: Request) => string): RequestHandler =>
  (req, res) => {
    res.type("html").send(page(req));
  };

export function addDocsPages(registry: RouteRegistry, openApiJson: string): void {
  registry
    .addPage("/openapi.json", (_req, res) => {
      res.type("json").send(openApiJson);
    })
    .addPage("/docs", html(swaggerPage))
    .addPage("/docs/{asset}", (req, res, next) => {
      const asset = String(req.params.asset);
      if (!SWAGGER_ASSETS.has(asset)) return next();
      res.sendFile(asset, fromDir(SWAGGER_UI_DIR));
    })
    .addPage("/redoc", html(redocPage))
    .addPage("/redoc/redoc.standalone.js", (_req, res) => {
      res.sendFile("redoc.standalone.js", fromDir(REDOC_BUNDLE_DIR));
    });
}
