// Routes are written once as OpenAPI path templates (`/v1/projects/{project_id}`). Express and the matcher
// behind 405 answers and WebSocket endpoints derive their own forms from that one string.

type Part = { literal: string } | { param: string };

const PARAM = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function split(template: string): Part[] {
  const parts: Part[] = [];
  let last = 0;
  for (const m of template.matchAll(PARAM)) {
    if (m.index > last) parts.push({ literal: template.slice(last, m.index) });
    parts.push({ param: m[1]! });
    last = m.index + m[0].length;
  }
  if (last < template.length) parts.push({ literal: template.slice(last) });
  return parts;
}

/** `/v1/projects:batch/{id}` -> `/v1/projects\:batch/:id` (path-to-regexp 8 reserves `:*?+!(){}[]`). */
export function expressPath(template: string): string {
  return split(template)
    .map((p) => ("param" in p ? `:${p.param}` : p.literal.replace(/[{}()[\]+?!:*\\]/g, "\\$&")))
    .join("");
}

/** A matcher answering the template's parameters for a canonical path, or undefined (case-insensitive, as express). */
export function templateMatcher(template: string): (path: string) => Record<string, string> | undefined {
  const names: string[] = [];
  const source = split(template)
    .map((p) => {
      if ("literal" in p) return p.literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(p.param);
      return "([^/]+)";
    })
    .join("");
  const pattern = new RegExp(`^${source}$`, "i");
  return (path) => {
    const m = pattern.exec(path);
    if (!m) return undefined;
    try {
      return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
    } catch {
      return undefined; // a malformed percent-escape matches nothing
    }
  };
}
