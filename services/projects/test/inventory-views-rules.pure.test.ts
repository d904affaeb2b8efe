// The dependency graph's cut and the release diff's classification (domain/dependency-graph.ts,
// domain/release-diff.ts), without a server.
import { describe, expect, it } from "@jest/globals";
import { cutGraph, GRAPH_NODE_CAP } from "../src/domain/dependency-graph.ts";
import { changesOf, DIFF_LIST_CAP, diffSummary, diffTruncated, NO_CHANGES } from "../src/domain/release-diff.ts";

const node = (n: number) => ({ id: `row-${n}`, componentId: `component-${n}` });

describe("the dependency graph's cut", () => {
  it("keeps the first cap nodes and only the edges whose ends are kept, named by component id", () => {
    const nodes = [node(1), node(2), node(3), node(4)];
    const edges = [
      { fromId: null, toId: "row-1", scope: "required" },
      { fromId: null, toId: "row-4", scope: null },
      { fromId: "row-1", toId: "row-2", scope: "optional" },
      { fromId: "row-2", toId: "row-3", scope: null },
      { fromId: "row-3", toId: "row-1", scope: null },
      { fromId: "row-4", toId: "row-1", scope: null },
      { fromId: "row-9", toId: "row-1", scope: null },
    ];
    const cut = cutGraph(nodes, edges, 10, 3);
    expect(cut.nodes).toEqual([node(1), node(2), node(3)]);
    expect(cut.edges).toEqual([
      { from: null, to: "component-1", scope: "required" },
      { from: "component-1", to: "component-2", scope: "optional" },
      { from: "component-2", to: "component-3", scope: null },
      { from: "component-3", to: "component-1", scope: null },
    ]);
    expect(cut.truncated).toBe(true);
  });

  it("is not truncated when the snapshot holds no more nodes than the answer", () => {
    expect(cutGraph([node(1)], [], 1).truncated).toBe(false);
    expect(cutGraph([], [], 0)).toEqual({ nodes: [], edges: [], truncated: false });
    expect(GRAPH_NODE_CAP).toBe(5000);
  });
});

describe("the release diff's rules", () => {
  it("names what changed between two components of one identity: version, then license", () => {
    expect(changesOf({ version: "1", license: "MIT" }, { version: "2", license: "MIT" })).toEqual(["version"]);
    expect(changesOf({ version: "1", license: "MIT" }, { version: "1", license: "ISC" })).toEqual(["license"]);
    expect(changesOf({ version: "1", license: null }, { version: "2", license: "ISC" })).toEqual([
      "version",
      "license",
    ]);
    expect(changesOf({ version: null, license: null }, { version: "1", license: null })).toEqual(["version"]);
  });

  it("counts the target's unchanged components and flags lists past the cap", () => {
    const totals = { ...NO_CHANGES, componentsAdded: 3, componentsChanged: 2, componentsRemoved: 1 };
    expect(diffSummary(totals, 10)).toEqual({
      ...totals,
      licensesAdded: 0,
      licensesRemoved: 0,
      componentsUnchanged: 5,
      vulnerabilitiesAdded: 0,
      vulnerabilitiesRemoved: 0,
    });
    expect(diffTruncated(totals)).toBe(false);
    expect(diffTruncated({ ...NO_CHANGES, licensesRemoved: DIFF_LIST_CAP })).toBe(false);
    expect(diffTruncated({ ...NO_CHANGES, licensesRemoved: DIFF_LIST_CAP + 1 })).toBe(true);
    expect(diffTruncated({ ...NO_CHANGES, vulnerabilitiesAdded: DIFF_LIST_CAP + 1 })).toBe(true);
    expect(diffSummary(NO_CHANGES, 0).componentsUnchanged).toBe(0);
  });
});
