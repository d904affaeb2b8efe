// Turns Kubernetes' published OpenAPI (v2) document into the strict JSON schemas kubeconform reads, one file per kind
// and version, as kubeconform's own schema catalogue is made (openapi2jsonschema's --strict --kubernetes): every
// definition goes into _definitions.json; each kind's file refers to its definition there. Strict: an object schema
// that lists its properties refuses any other (a mistyped or mis-indented field), and the two scalar types YAML may
// write either way (int-or-string, a Quantity) accept both. Run by scripts/setup/kubeconform.sh:
//   node scripts/kubernetes-json-schemas.ts swagger.json OUT_DIR
// A kind's file is <kind>_<group>_<version>.json (lower-case kind), which scripts/check-helm.sh names to kubeconform as
// {{ .ResourceKind }}_{{ .Group }}_{{ .ResourceAPIVersion }}.json; kubeconform's Group of the core API's `v1` is `v1`.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

type Schema = { [key: string]: unknown };
interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

const [swaggerPath, out] = process.argv.slice(2);
if (!swaggerPath || !out) {
  console.error("usage: node scripts/kubernetes-json-schemas.ts swagger.json OUT_DIR");
  process.exit(2);
}
const swagger = JSON.parse(readFileSync(swaggerPath, "utf8")) as { definitions: Record<string, Schema> };

const QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity";

function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (schema === null || typeof schema !== "object") return schema;
  const s: Schema = {};
  for (const [k, v] of Object.entries(schema as Schema)) s[k] = k === "properties" ? strictProperties(v) : strict(v);
  if (typeof s.$ref === "string") s.$ref = s.$ref.replace("#/definitions/", "_definitions.json#/definitions/");
  if (s.format === "int-or-string") return { ...withoutType(s), oneOf: [{ type: "string" }, { type: "integer" }] };
  if (s.properties && s.additionalProperties === undefined) s.additionalProperties = false;
  return s;
}

function strictProperties(properties: unknown): unknown {
  return Object.fromEntries(Object.entries(properties as Schema).map(([name, v]) => [name, strict(v)]));
}

function withoutType(s: Schema): Schema {
  const rest = { ...s };
  delete rest.type;
  delete rest.format;
  return rest;
}

const definitions: Record<string, unknown> = {};
for (const [name, schema] of Object.entries(swagger.definitions)) {
  definitions[name] =
    name === QUANTITY ? { ...withoutType(schema), oneOf: [{ type: "string" }, { type: "number" }] } : strict(schema);
}
writeFileSync(join(out, "_definitions.json"), JSON.stringify({ definitions }));

let kinds = 0;
for (const [name, schema] of Object.entries(swagger.definitions)) {
  const gvks = (schema["x-kubernetes-group-version-kind"] ?? []) as GroupVersionKind[];
  for (const { group, version, kind } of gvks) {
    const file = `${kind.toLowerCase()}_${group || version}_${version}.json`;
    writeFileSync(join(out, file), JSON.stringify({ $ref: `_definitions.json#/definitions/${name}` }));
    kinds++;
  }
}
console.log(`${kinds} kinds from ${Object.keys(definitions).length} definitions in ${out}`);
