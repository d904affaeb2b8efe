// The kafkajs client every service uses, writing its log lines through our pino logger and naming topics on the
// broker with the deployment's prefix.
import {
  Kafka,
  logLevel,
  type Consumer,
  type ConsumerConfig,
  type KafkaConfig,
  type LogEntry,
  type logCreator,
} from "kafkajs";
import type { Logger } from "@sca/log";

export interface KafkaOptions {
  brokers: string[];
  /** Names this process in broker logs and quotas, e.g. the service name. */
  clientId: string;
  logger: Logger;
  /** KAFKA_TOPIC_PREFIX (its key checks it): "" for none; tests give each run a prefix of its own. */
  topicPrefix: string;
  /**
   * KAFKA_FETCH_MAX_WAIT_MS: how long a consumer's fetch waits on the broker for records (kafkajs's 5 s by default).
   * A consumer stops only once its fetch in flight returns, so tests, which stop hundreds, shorten it.
   */
  fetchMaxWaitMs?: number;
}

/**
 * A kafkajs client whose topics are `<topicPrefix><logical name>` on the broker, so several deployments (and test
 * runs) can share one cluster. Code names logical topics (TOPICS.auditEvents, what outbox rows store); the relay,
 * the consumers, their dead-letter topics and ensureTopics translate with topicName(), and so must anyone who
 * uses the kafkajs API directly.
 */
export class KafkaClient extends Kafka {
  readonly topicPrefix: string;
  private readonly fetchMaxWaitMs: number | undefined;

  constructor(config: KafkaConfig, topicPrefix: string, fetchMaxWaitMs?: number) {
    super(config);
    this.topicPrefix = topicPrefix;
    this.fetchMaxWaitMs = fetchMaxWaitMs;
  }

  override consumer(config: ConsumerConfig): Consumer {
    return super.consumer(
      this.fetchMaxWaitMs === undefined ? config : { maxWaitTimeInMs: this.fetchMaxWaitMs, ...config },
    );
  }

  /** The broker's name of a logical topic: the one place the prefix is applied. */
  topicName(logical: string): string {
    return `${this.topicPrefix}${logical}`;
  }
}

export function createKafka(opts: KafkaOptions): KafkaClient {
  return new KafkaClient(
    {
      brokers: opts.brokers,
      clientId: opts.clientId,
      connectionTimeout: 3000,
      // Enough to ride out a broker restart or a leader election (about a minute and a half) before failing.
      retry: { initialRetryTime: 300, maxRetryTime: 30_000, retries: 8 },
      // kafkajs's DEBUG is per-request protocol chatter; pino filters the rest by LOG_LEVEL.
      logLevel: logLevel.INFO,
      logCreator: pinoLogCreator(opts.logger.child({ component: "kafkajs" })),
    },
    opts.topicPrefix,
    opts.fetchMaxWaitMs,
  );
}

function pinoLogCreator(logger: Logger): logCreator {
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      const { message, timestamp: _timestamp, logger: _source, ...fields } = log;
      const line = { namespace, ...fields };
      if (isExpectedNoise(namespace, message)) logger.debug(line, message);
      else if (level === logLevel.ERROR) logger.error(line, message);
      else if (level === logLevel.WARN) logger.warn(line, message);
      else if (level === logLevel.INFO) logger.info(line, message);
      else logger.debug(line, message);
    };
}

// kafkajs logs every error response of the protocol at ERROR although it retries them or hands them to us
// (and we log what finally fails), and warns about the relay's bounded retries, which are deliberate: a
// bounded retry may duplicate a record, and every consumer is idempotent.
function isExpectedNoise(namespace: string, message: string): boolean {
  return (
    (namespace === "Connection" && message.startsWith("Response ")) ||
    message.startsWith("Limiting retries for the idempotent producer")
  );
}
