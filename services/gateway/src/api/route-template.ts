// The template a request matched (`/v1/projects/{project_id}`), for metrics and logs: labelling by template
// keeps the series count bounded whatever paths callers send.
import type { Request } from "express";

const templates = new WeakMap<Request, string>();

export function setRouteTemplate(req: Request, template: string): void {
  templates.set(req, template);
}

export function routeTemplateOf(req: Request): string | undefined {
  return templates.get(req);
}
