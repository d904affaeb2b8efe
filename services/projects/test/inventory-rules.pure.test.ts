// The inventory's pure rules: the list's query reading, raw_data bounding and component ids.
import { describe, expect, it } from "@jest/globals";
import { create } from "@bufbuild/protobuf";
import type { FieldViolation } from "@sca/problem";
import { ComponentFilterSchema } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { componentFilterOf, componentWindowOf, sortKeysOf } from "../src/domain/component-list.ts";
import { ascendingIds, componentIdOf } from "../src/domain/inventory-artefact.ts";

describe("the component list's query", () => {
  it("drops unknown dependency scopes, keeping the filter when only unknown ones were named", () => {
    const v: FieldViolation[] = [];
    const read = (scopes: string[]) =>
      componentFilterOf(create(ComponentFilterSchema, { dependencyScope: scopes }), v).dependencyScope;
    expect(read(["Required", "bogus", "unspecified"])).toEqual(["required", "unspecified"]);
    expect(read(["bogus"])).toEqual([]);
    expect(read([])).toBeUndefined();
    expect(v).toEqual([]);
  });

  it("reads sort fields with '-' inverting the order's direction, and rejects others", () => {
    const v: FieldViolation[] = [];
    expect(sortKeysOf("", "", v)).toEqual([{ field: "name", descending: false }]);
    expect(sortKeysOf("-severity,name", "desc", v)).toEqual([
      { field: "severity", descending: false },
      { field: "name", descending: true },
    ]);
    expect(v).toEqual([]);
    sortKeysOf("purl", "sideways", v);
    expect(v.map((x) => x.path)).toEqual(["query.order", "query.sort"]);
  });

  it("takes limit 1..500 (0: the default 50) and offset >= 0, rejecting the rest", () => {
    const v: FieldViolation[] = [];
    expect(componentWindowOf(0, 0, v)).toEqual({ limit: 50, offset: 0 });
    expect(componentWindowOf(500, 7, v)).toEqual({ limit: 500, offset: 7 });
    expect(v).toEqual([]);
    componentWindowOf(501, -1, v);
    expect(v.map((x) => x.path)).toEqual(["query.limit", "query.offset"]);
  });
});

describe("ids", () => {
  it("names a component key with one UUIDv5 everywhere", () => {
    const id = componentIdOf("pkg:npm/a@1.0.0");
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(componentIdOf("pkg:npm/a@1.0.0")).toBe(id);
    expect(componentIdOf("pkg:npm/a@1.0.1")).not.toBe(id);
  });

  it("hands out a snapshot's row ids as UUIDv7s in ascending order, later snapshots above earlier ones", () => {
    const next = ascendingIds(Date.parse("2026-01-01T00:00:00Z"));
    const ids = Array.from({ length: 1000 }, () => next());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(ascendingIds(Date.parse("2026-01-01T00:00:00.001Z"))() > ids.at(-1)!).toBe(true);
  });
});
