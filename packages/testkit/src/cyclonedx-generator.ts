// A realistic N-component CycloneDX 1.6 JSON document for tests and benchmarks: npm-like purls in a few dozen
// scopes, licenses (ids, expressions, names), hashes, a primary component with ~50 direct dependencies, and a
// layered dependency graph with a few back edges (cycles), as npm and Maven trees have. Deterministic per seed.

export interface GeneratedBomOptions {
  components: number;
  seed?: number;
  /** Average dependencies per component (default 3). */
  fanOut?: number;
  /**
   * The packages the components are, in order (the first `components` of them), instead of generated npm-like
   * names: a benchmark's real vulnerable package versions, so that matching finds something.
   */
  packages?: readonly { purl: string; group?: string; name: string; version: string }[];
}

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LICENSES = [
  { license: { id: "MIT" } },
  { license: { id: "Apache-2.0" } },
  { license: { id: "ISC" } },
  { license: { id: "BSD-3-Clause" } },
  { expression: "MIT OR Apache-2.0" },
  { license: { name: "Custom Corporate License" } },
];

export function generateCycloneDxBom(options: GeneratedBomOptions): Record<string, unknown> {
  const random = mulberry32(options.seed ?? 1);
  const n = options.components;
  const fanOut = options.fanOut ?? 3;
  const refs: string[] = [];
  const components: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i += 1) {
    const given = options.packages?.[i];
    const scope = given ? given.group : `@scope${i % 40}`;
    const name = given?.name ?? `package-${i}`;
    const version = given?.version ?? `${1 + (i % 7)}.${i % 13}.${i % 5}`;
    const ref = given?.purl ?? `${scope}/${name}@${version}`;
    refs.push(ref);
    const hex = (i.toString(16) + "0".repeat(64)).slice(0, 64);
    components.push({
      type: "library",
      "bom-ref": ref,
      group: scope,
      name,
      version,
      description: `Generated package ${i} for reader tests and benchmarks.`,
      // Given packages are all required: each of them is matched, as OSV-Scanner matches every one.
      scope: random() < 0.05 && !given ? "optional" : undefined,
      hashes: [
        { alg: "SHA-256", content: hex },
        { alg: "SHA-1", content: hex.slice(0, 40) },
      ],
      licenses: [LICENSES[i % LICENSES.length]],
      purl: given?.purl ?? `pkg:npm/${encodeURIComponent(scope!)}/${name}@${version}`,
      externalReferences: [
        { type: "distribution", url: `https://registry.example.test/${scope}/${name}/-/${name}-${version}.tgz` },
      ],
      properties: given ? [] : [{ name: "cdx:npm:package:path", value: `node_modules/${scope}/${name}` }],
    });
  }
  const direct = Math.min(50, n);
  const edges: Array<Set<number>> = Array.from({ length: n }, () => new Set<number>());
  for (let i = 0; i < n; i += 1) {
    // Every package below the direct ones has a parent among those before it, so all are reachable and the
    // tree is logarithmically deep, as package trees are.
    if (i >= direct) edges[Math.floor(random() * i)]!.add(i);
    const count = Math.floor(random() * (fanOut * 2 - 1));
    for (let k = 0; k < count && i + 1 < n; k += 1) {
      // Mostly forward (deeper layers), rarely a short way back: real trees share packages and have a few cycles.
      const target =
        random() < 0.001
          ? Math.max(0, i - 1 - Math.floor(random() * 20))
          : i + 1 + Math.floor(random() * Math.min(n - i - 1, 500));
      if (target !== i) edges[i]!.add(target);
    }
  }
  const dependencies = [
    { ref: "root-application@1.0.0", dependsOn: refs.slice(0, direct) },
    ...edges.map((targets, i) => ({ ref: refs[i]!, dependsOn: [...targets].map((t) => refs[t]!) })),
  ];
  return {
    bomFormat: "CycloneDX",
    specVersion: "1.6",
    serialNumber: `urn:uuid:00000000-0000-4000-8000-${String(options.seed ?? 1).padStart(12, "0")}`,
    version: 1,
    metadata: {
      timestamp: "2026-01-01T00:00:00Z",
      tools: { components: [{ type: "application", name: "cyclonedx-generator", version: "1.0.0" }] },
      component: {
        type: "application",
        "bom-ref": "root-application@1.0.0",
        name: "root-application",
        version: "1.0.0",
        purl: "pkg:npm/root-application@1.0.0",
      },
    },
    components,
    dependencies,
  };
}
