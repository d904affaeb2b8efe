import type { KafkaClient } from "@sca/kafka";

/** Deletes the topics under the client's prefix (everything that produced or read them has stopped). */
export async function deleteTopicsOf(kafka: KafkaClient): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const own = (await admin.listTopics()).filter((t) => t.startsWith(kafka.topicPrefix));
    if (own.length > 0) await admin.deleteTopics({ topics: own });
  } finally {
    await admin.disconnect();
  }
}
