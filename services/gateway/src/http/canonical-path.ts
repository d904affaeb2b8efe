// One path per resource before routing: in Kubernetes the ingress strips /api, locally the gateway does, and a
// trailing slash is dropped (`/v1/projects/` is `/v1/projects`). Routes, problem `instance`, metrics and logs
// all see the canonical path.
import type { RequestHandler } from "express";

export const PUBLIC_PREFIX = "/api";

export function canonicalPath(path: string): string {
  const unprefixed =
    path === PUBLIC_PREFIX ? "/" : path.startsWith(`${PUBLIC_PREFIX}/`) ? path.slice(PUBLIC_PREFIX.length) : path;
  return unprefixed.replace(/\/+$/, "") || "/";
}

export function canonicalizePath(): RequestHandler {
  return (req, _res, next) => {
    const q = req.url.indexOf("?");
    req.url = q === -1 ? canonicalPath(req.url) : canonicalPath(req.url.slice(0, q)) + req.url.slice(q);
    next();
  };
}
