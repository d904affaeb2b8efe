import { describe, expect, it } from "@jest/globals";
import { ListComponentsResponseSchema } from "@sca/proto/sca/projects/v1/inventory_pb.ts";
import { encodedMessage } from "@sca/rpc";
import { componentPageCache } from "../src/store/component-pages.ts";

const pageOf = (bytes: number, total = 1) =>
  encodedMessage(ListComponentsResponseSchema, { itemsJson: new Uint8Array(bytes), total });

/** A cache and a counter of the reads it had to make. */
function counted(maxBytes: number) {
  const cache = componentPageCache(maxBytes);
  let reads = 0;
  const page = (scanId: string, changes: number, query: unknown, bytes = 1000) =>
    cache.read({ scanId, changes }, query, () => {
      reads++;
      return Promise.resolve(pageOf(bytes));
    });
  return { cache, page, reads: () => reads };
}

describe("the kept component pages", () => {
  it("answers a page again for the same snapshot, count of writes and query", async () => {
    const c = counted(1024 * 1024);
    const first = await c.page("s1", 3, [{ search: "a" }, [], { limit: 50, offset: 0 }]);
    expect(await c.page("s1", 3, [{ search: "a" }, [], { limit: 50, offset: 0 }])).toBe(first);
    expect(c.reads()).toBe(1);
  });

  it("reads again when the snapshot has had another write, the query or the snapshot differs", async () => {
    const c = counted(1024 * 1024);
    await c.page("s1", 3, ["q"]);
    await c.page("s1", 4, ["q"]);
    await c.page("s1", 4, ["other"]);
    await c.page("s2", 4, ["q"]);
    expect(c.reads()).toBe(4);
  });

  it("keeps at most its byte budget, the least recently used page out first", async () => {
    const c = counted(4000);
    await c.page("s", 1, "a");
    await c.page("s", 1, "b");
    await c.page("s", 1, "a"); // a is now the most recent
    await c.page("s", 1, "c"); // b goes
    expect(c.cache.size.bytes).toBeLessThanOrEqual(4000);
    expect(c.reads()).toBe(3);
    await c.page("s", 1, "a");
    expect(c.reads()).toBe(3);
    await c.page("s", 1, "b");
    expect(c.reads()).toBe(4);
  });

  it("answers a page larger than the whole budget without keeping it", async () => {
    const c = counted(2000);
    await c.page("s", 1, "big", 5000);
    await c.page("s", 1, "big", 5000);
    expect(c.reads()).toBe(2);
    expect(c.cache.size).toEqual({ entries: 0, bytes: 0 });
  });

  it("reads once for requests that arrive while the page is being read", async () => {
    const c = counted(1024 * 1024);
    const [a, b] = await Promise.all([c.page("s", 1, "q"), c.page("s", 1, "q")]);
    expect(a).toBe(b);
    expect(c.reads()).toBe(1);
  });

  it("keeps nothing with a budget of 0", async () => {
    const c = counted(0);
    await c.page("s", 1, "a");
    await c.page("s", 1, "a");
    expect(c.reads()).toBe(2);
  });
});
