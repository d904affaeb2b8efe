import { setTimeout as delay } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { uniqueName } from "@sca/testkit";
import { runBroadcastConsumer } from "../src/index.ts";
import { KafkaFixture, waitFor } from "./fixture.ts";

describe("a broadcast consumer", () => {
  let fx: KafkaFixture;
  beforeEach(async () => {
    fx = await new KafkaFixture().open();
  });
  afterEach(() => fx.close());

  it("hands out each record published after it started, once, while its group is joined again", async () => {
    const topic = fx.auditTopic();
    const onTopic = await fx.recordTopic(topic.topic);
    fx.startRelay();
    await fx.enqueueCommitted("key", "before", topic);
    await waitFor("the first record on the topic", () => onTopic.length === 1);

    const handed: string[] = [];
    const groupId = uniqueName("kafka_test_broadcast");
    const broadcast = await runBroadcastConsumer({
      kafka: fx.kafka,
      groupId,
      topics: [topic],
      logger: fx.logger,
      handle: (message) => handed.push(message.action),
    });
    try {
      await fx.enqueueCommitted("key", "after-1", topic);
      await waitFor("the first record after start", () => handed.length === 1);

      // A second member joining and leaving makes the group rebalance twice: each join seeks again, and must carry
      // on from the last record handed out, neither back to where it started nor past what it has not read.
      const member = fx.kafka.consumer({ groupId });
      let memberJoined = false;
      member.on(member.events.GROUP_JOIN, () => (memberJoined = true));
      await member.connect();
      await member.subscribe({ topic: fx.kafka.topicName(topic.topic) });
      await member.run({ eachMessage: () => Promise.resolve() });
      await waitFor("the second member in the group", () => memberJoined);
      await member.disconnect();

      await fx.enqueueCommitted("key", "after-2", topic);
      await fx.enqueueCommitted("key", "after-3", topic);
      await waitFor("the records after the rejoins", () => handed.length >= 3);
      await delay(1_000); // a record handed out twice would arrive within this
      expect(handed).toEqual(["after-1", "after-2", "after-3"]);
    } finally {
      await broadcast.stop();
    }
  });
});
