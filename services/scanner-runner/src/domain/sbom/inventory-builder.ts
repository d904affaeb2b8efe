// From a format reader's draft to the inventory: one component per identity (canonical purl, else type, group,
// name and version), edges re-pointed at identities, then direct/depth by breadth-first search from the primary
// component and scope by the best path. Maps and queues only: linear in components plus edges, cycles included.
import { canonicalPurl } from "./component-fields.ts";
import { boundJsonObject } from "@sca/db/jsonb-object";
import type { ComponentDraft, DocumentDraft, ReadContext } from "./document-draft.ts";
import type { DependencyEdge, DependencyScope, SbomComponent, SbomInventory } from "./inventory.ts";
import { allOf } from "./license-expression.ts";

const SCOPE_RANK: Record<DependencyScope, number> = { required: 3, optional: 2, excluded: 1 };
const RANKED_SCOPES: DependencyScope[] = ["required", "optional", "excluded"];

function stronger(a: DependencyScope | null, b: DependencyScope | null): DependencyScope | null {
  if (a === null) return b;
  if (b === null) return a;
  return SCOPE_RANK[a] >= SCOPE_RANK[b] ? a : b;
}

function nameKey(draft: ComponentDraft): string {
  return `component:${[draft.type ?? "", draft.group ?? "", draft.name ?? ""].map(encodeURIComponent).join("/")}@${encodeURIComponent(draft.version ?? "")}`;
}

/** raw_data within the byte ceiling (@sca/db/jsonb-object's rule). */
function boundRawJson(whole: string, limit: number, onTruncate: () => void): string {
  const bounded = boundJsonObject(whole, limit);
  if (bounded.truncated) onTruncate();
  return bounded.text;
}

function componentOf(draft: ComponentDraft, key: string, purl: string | null, context: ReadContext): SbomComponent {
  const declaredLicense = allOf(draft.declaredLicenses);
  return {
    key,
    refs: [draft.ref],
    type: draft.type,
    group: draft.group,
    name: draft.name ?? "",
    version: draft.version,
    purl,
    cpe: draft.cpe,
    hashes: [...draft.hashes],
    declaredLicense,
    concludedLicense: draft.concludedLicense,
    licenseIds: licenseIdsOf(declaredLicense, draft.concludedLicense, context),
    supplier: draft.supplier,
    author: draft.author,
    description: draft.description,
    scope: draft.scope,
    direct: null,
    depth: null,
    rawJson: draft.rawJson,
  };
}

function licenseIdsOf(declared: string | null, concluded: string | null, context: ReadContext): string[] {
  const ids = new Set<string>();
  for (const expression of [declared, concluded])
    if (expression) for (const id of context.licenses.expression(expression).ids) ids.add(id);
  return [...ids].sort();
}

function merge(into: SbomComponent, draft: ComponentDraft, context: ReadContext): void {
  into.refs.push(draft.ref);
  const algorithms = new Set(into.hashes.map((h) => h.algorithm));
  for (const hash of draft.hashes) if (!algorithms.has(hash.algorithm)) into.hashes.push(hash);
  into.declaredLicense ??= allOf(draft.declaredLicenses);
  into.concludedLicense ??= draft.concludedLicense;
  into.licenseIds = licenseIdsOf(into.declaredLicense, into.concludedLicense, context);
  into.cpe ??= draft.cpe;
  into.supplier ??= draft.supplier;
  into.author ??= draft.author;
  into.description ??= draft.description;
  // The same package required in one place and optional in another is required.
  into.scope = stronger(into.scope, draft.scope);
}

const ROOT = -1;

export function buildInventory(draft: DocumentDraft, context: ReadContext, rawDataMaxBytes: number): SbomInventory {
  const { warnings } = context;
  const identityOf = (d: ComponentDraft): { key: string; purl: string | null } => {
    if (d.purlText) {
      const purl = canonicalPurl(d.purlText);
      if (purl) return { key: purl, purl };
      warnings.add(
        "invalid_purl",
        "A purl that does not parse was ignored (kept in raw_data); the component is identified by name.",
        d.purlText,
      );
    }
    return { key: nameKey(d), purl: null };
  };

  const primaryIdentity = draft.primary ? identityOf(draft.primary) : null;
  const primary =
    draft.primary && primaryIdentity
      ? componentOf(draft.primary, primaryIdentity.key, primaryIdentity.purl, context)
      : null;

  const components: SbomComponent[] = [];
  const indexByKey = new Map<string, number>();
  const indexByRef = new Map<string, number>();
  for (const ref of draft.rootRefs) indexByRef.set(ref, ROOT);

  for (const d of draft.components) {
    if (!d.name) {
      warnings.add("component_without_name", "A component without a name was skipped.", d.purlText ?? d.ref);
      continue;
    }
    const { key, purl } = identityOf(d);
    let index: number;
    if (primaryIdentity && key === primaryIdentity.key) {
      // The described thing listed again among its own components: it is the root, not a dependency.
      index = ROOT;
      warnings.add(
        "primary_component_listed",
        "The primary component also appears among the components; it is kept as the root only.",
        key,
      );
    } else if (indexByKey.has(key)) {
      index = indexByKey.get(key)!;
      merge(components[index]!, d, context);
      warnings.add(
        "duplicate_component",
        "Components with the same identity were merged into one (first occurrence first).",
        key,
      );
    } else {
      index = components.length;
      indexByKey.set(key, index);
      components.push(componentOf(d, key, purl, context));
    }
    if (!indexByRef.has(d.ref)) indexByRef.set(d.ref, index);
    else if (indexByRef.get(d.ref) !== index) {
      warnings.add(
        "duplicate_bom_ref",
        "A bom-ref or SPDXID named two different components; edges follow the first.",
        d.ref,
      );
    }
  }

  // Edges between identities; repeated edges collapse and keep their strongest scope.
  const n = components.length;
  const edgeScope = new Map<number, DependencyScope | null>();
  const adjacency: number[][] = Array.from({ length: n + 1 }, () => []);
  const node = (index: number): number => (index === ROOT ? n : index);
  const selfLoops = new Set<number>();
  for (const edge of draft.edges) {
    const from = indexByRef.get(edge.from);
    const to = indexByRef.get(edge.to);
    if (from === undefined || to === undefined) {
      warnings.add(
        "unknown_dependency_ref",
        "A dependency edge names a ref that is not a component of the document; it was ignored.",
        from === undefined ? edge.from : edge.to,
      );
      continue;
    }
    if (to === ROOT) continue;
    if (from === to) {
      selfLoops.add(from);
      continue;
    }
    const id = node(from) * (n + 1) + to;
    if (edgeScope.has(id)) edgeScope.set(id, stronger(edgeScope.get(id)!, edge.scope));
    else {
      edgeScope.set(id, edge.scope);
      adjacency[node(from)]!.push(to);
    }
  }

  const dependencies: DependencyEdge[] = [];
  for (const [id, scope] of edgeScope) {
    const from = Math.floor(id / (n + 1));
    dependencies.push({ from: from === n ? null : components[from]!.key, to: components[id % (n + 1)]!.key, scope });
  }

  // direct and depth: breadth-first from the root; a node is visited once, so cycles end.
  const rooted = adjacency[n]!.length > 0;
  let maxDepth = 0;
  let directCount = 0;
  if (rooted) {
    const depth = new Int32Array(n).fill(-1);
    const queue = new Int32Array(n);
    let head = 0;
    let tail = 0;
    for (const child of adjacency[n]!) {
      if (depth[child] !== -1) continue;
      depth[child] = 1;
      queue[tail++] = child;
    }
    while (head < tail) {
      const current = queue[head++]!;
      for (const child of adjacency[current]!) {
        if (depth[child] !== -1) continue;
        depth[child] = depth[current]! + 1;
        queue[tail++] = child;
      }
    }
    for (let i = 0; i < n; i += 1) {
      const component = components[i]!;
      component.depth = depth[i] === -1 ? null : depth[i]!;
      component.direct = depth[i] === 1;
      if (depth[i] === 1) directCount += 1;
      if (depth[i]! > maxDepth) maxDepth = depth[i]!;
    }
    // CycloneDX edges carry no scope: only SPDX relationship types give something to derive.
    if (draft.edges.some((e) => e.scope !== null)) deriveScopes(components, adjacency, edgeScope, n);
  }

  const onCycle = componentsOnCycles(adjacency, n);
  for (const index of selfLoops) onCycle[index] = 1;
  const componentsInCycles = onCycle.reduce((sum, flag) => sum + flag, 0);
  if (componentsInCycles > 0)
    warnings.add(
      "dependency_cycle",
      "The dependency graph has cycles; depth is the shortest path and reading stopped at each visited component.",
      `${componentsInCycles} component(s) on cycles`,
    );

  const onTruncate = (key: string) => () =>
    warnings.add(
      "raw_data_truncated",
      `A component's raw_data was over ${rawDataMaxBytes} bytes and was cut to the fields that fit.`,
      key,
    );
  for (const component of components)
    component.rawJson = boundRawJson(component.rawJson, rawDataMaxBytes, onTruncate(component.key));
  if (primary) primary.rawJson = boundRawJson(primary.rawJson, rawDataMaxBytes, onTruncate(primary.key));

  return {
    document: {
      format: draft.format,
      specVersion: draft.specVersion,
      serialNumber: draft.serialNumber,
      bomVersion: draft.bomVersion,
      name: draft.name,
      createdAt: draft.createdAt,
      tools: draft.tools,
      primaryComponent: primary,
      release: primary?.version ?? null,
    },
    components,
    dependencies,
    graph: { rooted, edgeCount: dependencies.length, directCount, maxDepth, componentsInCycles },
    declaredComponentCount: draft.components.length,
    warnings: warnings.list(),
  };
}

// A component without a declared scope takes the best scope over the paths from the root, a path being as
// strong as its weakest scoped edge (unscoped edges, like CONTAINS or a bare DEPENDS_ON, pass it on). One search
// per scope level, over (node, seen-a-scoped-edge) states: linear, and cycles end because states are visited once.
function deriveScopes(
  components: SbomComponent[],
  adjacency: number[][],
  edgeScope: Map<number, DependencyScope | null>,
  n: number,
): void {
  const derived: Array<DependencyScope | null> = new Array<DependencyScope | null>(n).fill(null);
  for (const level of RANKED_SCOPES) {
    const minimum = SCOPE_RANK[level];
    const seen = new Uint8Array((n + 1) * 2);
    const stack: number[] = [n * 2];
    seen[n * 2] = 1;
    while (stack.length > 0) {
      const state = stack.pop()!;
      const from = state >> 1;
      const scoped = state & 1;
      for (const to of adjacency[from]!) {
        const scope = edgeScope.get(from * (n + 1) + to) ?? null;
        if (scope !== null && SCOPE_RANK[scope] < minimum) continue;
        const next = to * 2 + (scope !== null || scoped ? 1 : 0);
        if (seen[next]) continue;
        seen[next] = 1;
        stack.push(next);
        if (next & 1 && derived[to] === null) derived[to] = level;
      }
    }
  }
  for (let i = 0; i < n; i += 1) if (components[i]!.scope === null) components[i]!.scope = derived[i]!;
}

// Components that share a strongly connected component with another (Tarjan's algorithm, iterative so a deep
// chain cannot overflow the call stack): 1 for each such component.
function componentsOnCycles(adjacency: number[][], n: number): Uint8Array {
  const onCycle = new Uint8Array(n);
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  let counter = 0;
  const edgeCursor = new Int32Array(n);
  for (let start = 0; start < n; start += 1) {
    if (index[start] !== -1) continue;
    const callStack: number[] = [start];
    index[start] = low[start] = counter++;
    stack.push(start);
    onStack[start] = 1;
    while (callStack.length > 0) {
      const v = callStack[callStack.length - 1]!;
      const edges = adjacency[v]!;
      if (edgeCursor[v]! < edges.length) {
        const w = edges[edgeCursor[v]!]!;
        edgeCursor[v] = edgeCursor[v]! + 1;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          callStack.push(w);
        } else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      callStack.pop();
      const parent = callStack[callStack.length - 1];
      if (parent !== undefined) low[parent] = Math.min(low[parent]!, low[v]!);
      if (low[v] === index[v]) {
        const members: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          members.push(w);
        } while (w !== v);
        if (members.length > 1) for (const member of members) onCycle[member] = 1;
      }
    }
  }
  return onCycle;
}
