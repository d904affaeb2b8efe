import { randomUUID } from "node:crypto";
import { describe, expect, it } from "@jest/globals";
import { findingCountOf, idsOfWindow } from "../src/store/findings/finding-orders.ts";

/** An order as PostgreSQL's string_agg(uuid_send(id)) writes it. */
const orderOf = (ids: string[]) => Buffer.concat(ids.map((id) => Buffer.from(id.replaceAll("-", ""), "hex")));

describe("a kept finding order", () => {
  const ids = Array.from({ length: 7 }, () => randomUUID());
  const order = orderOf(ids);

  it("counts its findings and answers a window's ids as UUID text", () => {
    expect(findingCountOf(order)).toBe(7);
    expect(idsOfWindow(order, { limit: 3, offset: 0 })).toEqual(ids.slice(0, 3));
    expect(idsOfWindow(order, { limit: 3, offset: 5 })).toEqual(ids.slice(5));
  });

  it("answers no ids past its end, and none of an empty order", () => {
    expect(idsOfWindow(order, { limit: 50, offset: 7 })).toEqual([]);
    expect(idsOfWindow(Buffer.alloc(0), { limit: 50, offset: 0 })).toEqual([]);
    expect(findingCountOf(Buffer.alloc(0))).toBe(0);
  });
});
