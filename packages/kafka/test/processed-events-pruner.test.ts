import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { ProcessedEventsPruner, uuidv7 } from "../src/index.ts";
import { KafkaFixture } from "./fixture.ts";

const DAY_MS = 24 * 3600_000;

describe("pruning processed_events", () => {
  let fx: KafkaFixture;
  const table = () => `"${fx.schema}".processed_events`;
  /** Records `count` applied events of `group`, `ageDays` old; returns their ids. */
  const applied = async (group: string, ageDays: number, count = 1) => {
    const ids = Array.from({ length: count }, () => uuidv7());
    for (const id of ids) {
      await fx
        .em()
        .execute(
          `insert into ${table()} (consumer_group, event_id, processed_at) values (?, ?, now() - make_interval(days => ?))`,
          [group, id, ageDays],
        );
    }
    return ids;
  };
  const remaining = async () =>
    (await fx.em().execute<{ event_id: string }[]>(`select event_id from ${table()} order by event_id`)).map(
      (r) => r.event_id,
    );

  beforeEach(async () => {
    fx = await new KafkaFixture().open();
  });
  afterEach(() => fx.close());

  it("deletes rows past 14 days, at most `limit` per sweep, and keeps the rest", async () => {
    await applied("group-a", 30, 2);
    await applied("group-b", 15);
    const kept = [...(await applied("group-a", 13)), ...(await applied("group-b", 0, 2))];
    const pruner = new ProcessedEventsPruner({ orm: fx.orm, logger: fx.logger, limit: 2 });

    expect(await pruner.sweep()).toBe(2);
    expect(await pruner.sweep()).toBe(1);
    expect(await pruner.sweep()).toBe(0);
    expect(await remaining()).toEqual(kept.sort());
  });

  it("takes the retention as an option", async () => {
    await applied("group-a", 2, 3);
    const today = await applied("group-a", 0);
    const pruner = new ProcessedEventsPruner({ orm: fx.orm, logger: fx.logger, retentionMs: DAY_MS });

    expect(await pruner.sweep()).toBe(3);
    expect(await remaining()).toEqual(today);
  });

  it("indexes processed_at, so a sweep finds old rows without reading the whole table", async () => {
    const plan = await fx.em().transactional(async (em) => {
      await em.execute("set local enable_seqscan = off");
      const rows = await em.execute<{ "QUERY PLAN": string }[]>(
        `explain select consumer_group, event_id from ${table()} where processed_at < now() - make_interval(secs => 1209600) limit 10000`,
      );
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
    expect(plan).toMatch(/Index (Only )?Scan (using|on) processed_events_processed_at/);
  });
});
