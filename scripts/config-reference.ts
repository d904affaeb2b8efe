// Writes docs/configuration.md, the reference of every environment key a process reads, from the declarations
// themselves: each service's config.ts (and the runtime's keys every domain service loads) says which process reads
// a key, its parser gives the default, its `secret` flag whether it is one, and the comment above the declaration
// (in the service's file, else in packages/config/src/keys.ts) what it is; and the keys the Helm chart's `env` map
// may hold (values.schema.json). `--check` fails when either is stale, so a key cannot be added without its line
// (the config-docs stage of ./dev test runs it).
//   node scripts/config-reference.ts [--check]
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import type { KeySpec } from "../packages/config/src/index.ts";
import { anyCase, type Accepts } from "../packages/config/src/parse.ts";
import { SERVICES } from "../packages/runtime/src/services.ts";
import { baseKeys, migrateKeys } from "../packages/runtime/src/start-service.ts";
import { kafkaKeys } from "../packages/runtime/src/service-kafka.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const OUT = "docs/configuration.md";
const VALUES_SCHEMA = "deploy/helm/sca-portal/values.schema.json";
type Spec = Record<string, KeySpec<unknown>>;

/** Each process, the file that declares its keys, and the keys it loads. */
async function processes(): Promise<{ name: string; file: string; spec: Spec }[]> {
  const load = async (name: string, exported: string) => {
    const file = `services/${name}/src/config.ts`;
    const module = (await import(new URL(`../${file}`, import.meta.url).href)) as Record<string, Spec>;
    return { name, file, spec: module[exported]! };
  };
  const camel = (name: string) => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
  const domain = await Promise.all(
    Object.keys(SERVICES).map(async (name) => {
      const own = await load(name, `${camel(name)}Keys`);
      // runService loads the base keys for every domain service and the Kafka keys for those that use Kafka; the
      // definitions do not say which without starting them, so the reference lists both for each (and the keys
      // their `migrate` command loads).
      return { ...own, spec: { ...baseKeys, ...migrateKeys, ...kafkaKeys, ...own.spec } };
    }),
  );
  return [...domain, await load("gateway", "gatewayKeys"), await load("frontend", "frontendKeys")];
}

/**
 * The comment above each key declared in the object literals of a file, by key name. A `//` comment above a run of
 * keys with no blank line between them (the SLA days) speaks for the whole run; a doc comment for its key alone.
 */
function commentsOf(file: string): Map<string, string> {
  const text = readFileSync(`${ROOT}${file}`, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = new Map<string, string>();
  const clean = (raw: string) =>
    raw
      .replace(/^\/\*\*?|\*\/$/g, "")
      .split("\n")
      .map((line) => line.replace(/^\s*(\*|\/\/)\s?/, "").trim())
      .join(" ")
      .trim();
  const visit = (node: ts.Node) => {
    if (ts.isObjectLiteralExpression(node)) {
      let run: string | undefined;
      let previousEnd = -1;
      for (const property of node.properties) {
        const ranges = ts.getLeadingCommentRanges(text, property.getFullStart()) ?? [];
        const gap = text.slice(previousEnd < 0 ? property.getFullStart() : previousEnd, property.getStart());
        if (gap.includes("\n\n") || previousEnd < 0) run = undefined;
        previousEnd = property.getEnd() + 1;
        const comments = ranges.map((r) => text.slice(r.pos, r.end));
        const lineComments = comments.filter((c) => c.startsWith("//"));
        // A section heading ("// Deployment") names a group; it says nothing of a key.
        const said = lineComments.map(clean).filter((c) => !/^[A-Z][\w ()/-]*$/.test(c));
        if (said.length) run = said.join(" ");
        const own = comments
          .filter((c) => c.startsWith("/*"))
          .map(clean)
          .join(" ");
        if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name)) continue;
        const name = property.name.text;
        const comment = own || run;
        if (/^[A-Z][A-Z0-9_]+$/.test(name) && comment && !found.has(name)) found.set(name, comment);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The comments of every file under `dir` that declares keys (calls `key(`). */
function commentsUnder(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const files = readdirSync(`${ROOT}${dir}`, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .sort();
  for (const f of files) {
    if (!readFileSync(`${ROOT}${dir}/${f}`, "utf8").includes("key(")) continue;
    for (const [name, comment] of commentsOf(`${dir}/${f}`)) if (!found.has(name)) found.set(name, comment);
  }
  return found;
}

function defaultOf(spec: KeySpec<unknown>): string {
  let value: unknown;
  try {
    value = spec.parse(undefined, {});
  } catch {
    return "required";
  }
  if (value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0))
    return "(empty)";
  const per = { 1: "second", 60: "minute", 3600: "hour", 86400: "day" } as Record<number, string>;
  const rate = value as { limit?: unknown; windowSeconds?: unknown };
  // A rate is written as it is set: 5/minute.
  if (typeof rate.limit === "number" && typeof rate.windowSeconds === "number")
    return `\`${rate.limit}/${per[rate.windowSeconds] ?? `${rate.windowSeconds} seconds`}\``;
  const shown = Array.isArray(value) ? value.join(",") : typeof value === "string" ? value : JSON.stringify(value);
  // A default under the checkout (the data directory's) is shown relative to it, as it is on every machine.
  return `\`${shown.replaceAll(ROOT, "<checkout>/")}\``;
}

/** The docs pages (docs/*.md) naming each key, as links from docs/. */
function pagesNaming(names: string[]): Map<string, string[]> {
  const pages = readdirSync(`${ROOT}docs`)
    .filter((f) => f.endsWith(".md") && f !== "configuration.md")
    .sort()
    .map((f) => ({ f, text: readFileSync(`${ROOT}docs/${f}`, "utf8") }));
  return new Map(
    names.map((name) => {
      const pattern = new RegExp(`\\b${name}\\b`);
      return [name, pages.filter((p) => pattern.test(p.text)).map((p) => `[${p.f.replace(/\.md$/, "")}](${p.f})`)];
    }),
  );
}

// <SERVICE>_RPC_URL keys are made by serviceAddressKeys, one per domain service.
function addressComment(key: string): string | undefined {
  const service = /^([A-Z_]+)_RPC_URL$/.exec(key)?.[1];
  return service
    ? `Where the ${service.toLowerCase().replaceAll("_", "-")} service's Connect server is reached (http://host:port).`
    : undefined;
}

const cell = (text: string) => text.replaceAll("|", "\\|");

/** What a key's parser accepts, in words (the reference's "Accepts" column, the schema's descriptions). */
function acceptsInWords(a: Accepts | undefined): string {
  if (!a) return "text (its own rule: see What it is)";
  const bounds = (what: string, min?: number, max?: number) =>
    min !== undefined && max !== undefined
      ? `${what} from ${min} to ${max}`
      : min !== undefined
        ? `${what} of at least ${min}`
        : max !== undefined
          ? `${what} up to ${max}`
          : what;
  switch (a.type) {
    case "integer":
      return `${bounds("an integer", a.minimum, a.maximum)}${a.outOfRange ? ` (the process takes ${a.outOfRange === "clamped" ? "the nearest bound for a value beyond" : "the default for any other value"})` : ""}`;
    case "number":
      return bounds("a number", a.minimum, a.maximum);
    case "boolean":
      return `true (${a.true.join(", ")}) or false (${a.false.join(", ")}), any case${a.otherwise === undefined ? "" : `; the process takes anything else as ${a.otherwise}`}`;
    case "enum":
      return `one of ${a.values.join(", ")}${a.caseInsensitive ? " (any case)" : ""}`;
    case "list":
      return a.items?.type === "integer"
        ? `comma-separated ${bounds("integers", a.items.minimum, a.items.maximum)}`
        : "a comma-separated list";
    case "text":
      return a.summary ?? (a.pattern ? `text matching \`${a.pattern}\`` : a.required ? "text (required)" : "text");
  }
}

const INTEGER = "^-?[0-9]+$";
const NUMBER = "^-?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?$";
const SCALAR = ["string", "number", "boolean"];

/**
 * The JSON Schema of a key's value in the chart's `env` map. Kubernetes takes environment values as strings, and the
 * chart writes each as one; a Helm user writes a YAML integer, number or boolean, or a string of one, so each is
 * accepted where the parser takes it (minimum/maximum bound the YAML numbers; a string's digits are not bounded by
 * JSON Schema). A value the process would clamp, or replace by its default, is refused too: it would not be used as
 * written.
 */
function chartValueSchema(a: Accepts | undefined): Record<string, unknown> {
  const description = acceptsInWords(a);
  const bounds = (b: { minimum?: number; maximum?: number }) => ({
    ...(b.minimum === undefined ? {} : { minimum: b.minimum }),
    ...(b.maximum === undefined ? {} : { maximum: b.maximum }),
  });
  const words = (values: readonly string[]) => `^(${values.map(anyCase).join("|")})$`;
  switch (a?.type) {
    case "integer":
      return { description, type: ["integer", "string"], pattern: INTEGER, ...bounds(a) };
    case "number":
      return { description, type: ["number", "string"], pattern: NUMBER, ...bounds(a) };
    case "boolean": {
      const numeric = [...a.true, ...a.false].filter((v) => /^[0-9]+$/.test(v)).map(Number);
      return {
        description,
        type: numeric.length ? ["boolean", "integer", "string"] : ["boolean", "string"],
        pattern: words([...a.true, ...a.false]),
        ...(numeric.length ? { minimum: Math.min(...numeric), maximum: Math.max(...numeric) } : {}),
      };
    }
    case "enum":
      return a.caseInsensitive
        ? { description, type: "string", pattern: words(a.values) }
        : { description, enum: a.values };
    case "list":
      return a.items?.type === "integer"
        ? {
            description,
            type: ["integer", "string"],
            pattern: "^\\s*-?[0-9]+\\s*(,\\s*-?[0-9]+\\s*)*$",
            ...bounds(a.items),
          }
        : { description, type: SCALAR };
    case "text":
      return a.pattern
        ? { description, type: "string", pattern: a.pattern }
        : { description, type: SCALAR, ...(a.required ? { minLength: 1 } : {}) };
    default:
      return { description, type: SCALAR };
  }
}

async function reference(): Promise<{ markdown: string; rows: Map<string, { spec: KeySpec<unknown> }> }> {
  const shared = commentsOf("packages/config/src/keys.ts");
  const runtime = new Map([
    ...commentsOf("packages/runtime/src/start-service.ts"),
    ...commentsOf("packages/runtime/src/service-kafka.ts"),
  ]);
  const rows = new Map<string, { readers: string[]; spec: KeySpec<unknown>; comment: string | undefined }>();
  for (const { name, file, spec } of await processes()) {
    const own = new Map([...commentsUnder(file.replace(/\/config\.ts$/, "")), ...commentsOf(file)]);
    for (const [key, keySpec] of Object.entries(spec)) {
      const row = rows.get(key) ?? { readers: [], spec: keySpec, comment: undefined };
      row.readers.push(name);
      row.comment ??= own.get(key) ?? shared.get(key) ?? runtime.get(key) ?? addressComment(key);
      rows.set(key, row);
    }
  }
  const pages = pagesNaming([...rows.keys()]);
  const lines = [...rows.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([key, row]) =>
        `| \`${key}\` | ${row.readers.join(", ")} | ${cell(defaultOf(row.spec))} | ${cell(acceptsInWords(row.spec.parse.accepts))} | ${row.spec.secret ? "yes" : ""} | ${cell(row.comment ?? "")} | ${pages.get(key)!.join(", ")} |`,
    );
  const markdown = [
    "# Configuration reference",
    "",
    "<!-- Generated by `node scripts/config-reference.ts` from the key declarations; `./dev test` checks it is current. -->",
    "",
    `Every environment key a process of the portal reads (${rows.size} keys), which processes read it, its default and`,
    "whether it is a secret (never printed, not even in an error line; set it from a Secret named in the chart's",
    "`envFromSecrets`). A process refuses to start on a value its parser rejects and names the key. The chart passes any",
    "key through `env` (values.yaml), refusing a value outside what the Accepts column says (docs/deploy.md,",
    '"Environment keys"); docs/deploy.md says which ones a production install sets. The feature pages of docs/ say',
    "more about each key where it matters.",
    "",
    "| Key | Read by | Default | Accepts | Secret | What it is | More in |",
    "|---|---|---|---|---|---|---|",
    ...lines,
    "",
  ].join("\n");
  return { markdown, rows };
}

/**
 * The chart's values.schema.json with its `env` map limited to the keys a process reads and that are not secrets
 * (those belong in a Secret named in envFromSecrets), each value typed by its parser: a mistyped key or value fails
 * `helm template` instead of stopping the process at its start.
 */
function valuesSchema(rows: Map<string, { spec: KeySpec<unknown> }>): string {
  const schema = JSON.parse(readFileSync(`${ROOT}${VALUES_SCHEMA}`, "utf8")) as {
    properties: { env: Record<string, unknown> };
  };
  const plain = [...rows].filter(([, row]) => !row.spec.secret).sort(([a], [b]) => (a < b ? -1 : 1));
  schema.properties.env.propertyNames = { enum: plain.map(([key]) => key) };
  schema.properties.env.properties = Object.fromEntries(
    plain.map(([key, row]) => [key, chartValueSchema(row.spec.parse.accepts)]),
  );
  return `${JSON.stringify(schema, null, 2)}\n`;
}

const generated = await reference();
const files = [
  { path: OUT, text: generated.markdown },
  { path: VALUES_SCHEMA, text: valuesSchema(generated.rows) },
];
if (process.argv.includes("--check")) {
  const stale = files.filter((f) => readFileSync(`${ROOT}${f.path}`, "utf8") !== f.text).map((f) => f.path);
  if (stale.length) {
    console.error(`${stale.join(" and ")} not what the key declarations say: run node scripts/config-reference.ts`);
    process.exit(1);
  }
} else for (const f of files) writeFileSync(`${ROOT}${f.path}`, f.text);
