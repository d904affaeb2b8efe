// The component list's rows come from projects as JSON PostgreSQL writes (ListComponentsRequest.items_as_json) and
// leave the gateway as they are: they must equal, field by field and in order, what componentJson makes of the
// Connect message of the same row. Half of a real snapshot's rows get a value in every column that was null (so a
// column the message carries but the JSON form forgets shows), the other half keep their nulls.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { CallOptions } from "@connectrpc/connect";
import { InventoryService } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { callAs, fixturesOf } from "@sca/testkit";
import { componentJson } from "../src/routes/projects/components.ts";
import type { ProjectsStack } from "./projects-stack.ts";
import { startJuiceShopProject, type JuiceShopProject } from "./support/juice-shop-project.ts";

let juice: JuiceShopProject;
let s: ProjectsStack;
let member: string;
let projectId: string;
let scanId: string;
let admin: CallOptions;

beforeAll(async () => {
  juice = await startJuiceShopProject({ name: "Juice rows", slug: "juice-rows" });
  ({ stack: s, member, projectId, scanId } = juice);
  admin = await callAs.superAdmin(randomUUID());
  // Every null text, number, boolean, date and timestamp column of half the rows gets a value (the filters' and later stages'
  // columns included; a column a check constraint limits gets the first value it names), so both forms are
  // compared with and without nulls.
  const db = s.projects.orm.em.getConnection();
  const columns = await db.execute<{ name: string; type: string }[]>(
    `select column_name as name, data_type as type from information_schema.columns
      where table_schema = current_schema() and table_name = 'inventory_components'`,
  );
  const checks = await db.execute<{ def: string }[]>(
    `select pg_get_constraintdef(oid) as def from pg_constraint
      where conrelid = 'inventory_components'::regclass and contype = 'c'`,
  );
  const allowed = (name: string) => checks.find((c) => c.def.includes(`(${name})`))?.def.match(/'([^']*)'/)?.[1];
  const valueOf: Record<string, (name: string) => string> = {
    text: (name) => `'${allowed(name) ?? "v"}'`,
    "character varying": (name) => `'${allowed(name) ?? "v"}'`,
    boolean: () => "true",
    smallint: () => "2",
    integer: () => "2",
    bigint: () => "2",
    numeric: () => "0.5",
    real: () => "0.5",
    "double precision": () => "0.5",
    date: () => "'2026-01-31'",
    "timestamp with time zone": () => "'2026-01-31T10:00:00.123Z'",
  };
  const filled = columns.flatMap(({ name, type }) => {
    const value = valueOf[type]?.(name);
    return value ? [`"${name}" = coalesce("${name}", ${value})`] : [];
  });
  await (
    await fixturesOf("projects")
  ).write(s.projects.orm, `update inventory_components set ${filled.join(", ")} where scan_id = ? and id::text < '8'`, [
    scanId,
  ]);
}, 60_000);

afterAll(async () => {
  await juice?.close();
});

describe("the component list's JSON rows", () => {
  it.each([
    [{}],
    [{ limit: 500 }],
    [{ sort: "-license,name", limit: 200, offset: 100 }],
    [{ filter: { search: "express", direct: false }, sort: "-severity" }],
    [{ filter: { dependencyScope: ["optional", "unspecified"] }, limit: 100 }],
  ])("equal componentJson of the Connect rows, in order (%j)", async (query) => {
    const inventory = s.projects.client(InventoryService);
    const request = { projectId, ...query };
    const messages = await inventory.listComponents(request, admin);
    const json = await inventory.listComponents({ ...request, itemsAsJson: true }, admin);
    expect(messages.items.length).toBeGreaterThan(0);
    expect(json.items).toEqual([]);
    expect(json.total).toBe(messages.total);
    const rows = JSON.parse(Buffer.from(json.itemsJson).toString("utf8")) as Record<string, unknown>[];
    const expected = messages.items.map((c) => componentJson(c));
    expect(rows).toEqual(expected);
    rows.forEach((row, i) => expect(Object.keys(row)).toEqual(Object.keys(expected[i]!)));
  });

  it("answer a page past the end as an empty array with the same total", async () => {
    const inventory = s.projects.client(InventoryService);
    const request = { projectId, filter: { direct: false }, offset: 100_000 };
    const messages = await inventory.listComponents(request, admin);
    const json = await inventory.listComponents({ ...request, itemsAsJson: true }, admin);
    expect(messages.total).toBeGreaterThan(0);
    expect(json.total).toBe(messages.total);
    expect(Buffer.from(json.itemsJson).toString("utf8")).toBe("[]");
  });

  it("are what the gateway answers, in the offset envelope", async () => {
    const r = await s.request("GET", `/v1/projects/${projectId}/components?limit=20&offset=10&sort=-name`, {
      bearer: member,
    });
    expect(r.status).toBe(200);
    expect(r.headers!.get("content-type")).toBe("application/json; charset=utf-8");
    const messages = await s.projects
      .client(InventoryService)
      .listComponents({ projectId, sort: "-name", limit: 20, offset: 10 }, admin);
    expect(r.json).toEqual({
      items: messages.items.map((c) => componentJson(c)),
      total: messages.total,
      limit: 20,
      offset: 10,
    });
  });
});
