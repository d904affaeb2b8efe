// The kafkajs client every service uses, writing its log lines through our pino logger.
import { Kafka, logLevel, type LogEntry, type logCreator } from "kafkajs";
import type { Logger } from "@sca/log";

export interface KafkaOptions {
  brokers: string[];
  /** Names this process in broker logs and quotas, e.g. the service name. */
  clientId: string;
  logger: Logger;
}

export function createKafka(opts: KafkaOptions): Kafka {
  return new Kafka({
    brokers: opts.brokers,
    clientId: opts.clientId,
    connectionTimeout: 3000,
    // Enough to ride out a broker restart or a leader election (about a minute and a half) before failing.
    retry: { initialRetryTime: 300, maxRetryTime: 30_000, retries: 8 },
    // kafkajs's DEBUG is per-request protocol chatter; pino filters the rest by LOG_LEVEL.
    logLevel: logLevel.INFO,
    logCreator: pinoLogCreator(opts.logger.child({ component: "kafkajs" })),
  });
}

function pinoLogCreator(logger: Logger): logCreator {
  return () => ({ namespace, level, log }: LogEntry) => {
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
  return (namespace === "Connection" && message.startsWith("Response ")) ||
    message.startsWith("Limiting retries for the idempotent producer");
}
