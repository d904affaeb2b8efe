// Where the tests find their real servers: DATABASE_URL, KAFKA_BROKERS and REDIS_URL from the environment
// (./dev test starts them on loopback), or, only where a Docker engine answers, containers started here.
export interface TestServers {
  databaseUrl: string;
  kafkaBrokers: string[];
  redisUrl: string;
}

export function testServers(): TestServers {
  const { DATABASE_URL, KAFKA_BROKERS, REDIS_URL } = process.env;
  if (!DATABASE_URL || !KAFKA_BROKERS || !REDIS_URL) {
    throw new Error("tests need DATABASE_URL, KAFKA_BROKERS and REDIS_URL (./dev test sets them) or a Docker engine");
  }
  return { databaseUrl: DATABASE_URL, kafkaBrokers: KAFKA_BROKERS.split(","), redisUrl: REDIS_URL };
}
