// The probes of the health panel: each of the portal's parts asked one cheap question with a deadline (a service its
// grpc.health.v1 readiness, PostgreSQL `select version()`, Redis PING, Kafka the cluster's brokers, the artefact store
// its volume, the SMTP relay its greeting). A probe answers its version when the part tells one, or throws.
import { connect } from "node:net";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ArtefactStore } from "@sca/artefacts";
import { column, rawQuery } from "@sca/db";
import type { KafkaClient } from "@sca/kafka";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@sca/proto/grpc/health/v1/health_pb.ts";
import type { Redis } from "@sca/redis";
import { createServiceClient, READINESS } from "@sca/rpc";

export const PROBE_TIMEOUT_MS = 2_000;

export interface Probe {
  name: string;
  kind: "service" | "database" | "queue" | "cache" | "store" | "mail" | "tool";
  /** Resolves with what the part says of its version ("" when nothing), or rejects with why it is down. */
  run(): Promise<string>;
}

export function serviceProbe(name: string, url: string): Probe {
  const health = createServiceClient(Health, url, { timeoutMs: PROBE_TIMEOUT_MS });
  return {
    name,
    kind: "service",
    async run() {
      const { status } = await health.check({ service: READINESS }, { timeoutMs: PROBE_TIMEOUT_MS });
      if (status !== Status.SERVING) throw new Error("not ready (its schema is not at head, or it is stopping)");
      return "";
    },
  };
}

export function databaseProbe(orm: MikroORM): Probe {
  return {
    name: "postgresql",
    kind: "database",
    async run() {
      const [row] = await rawQuery(orm.em.fork(), "select current_setting('server_version') as v", [], {
        v: column.text,
      });
      return row?.v ?? "";
    },
  };
}

export function redisProbe(redis: Redis): Probe {
  return {
    name: "redis",
    kind: "cache",
    async run() {
      if ((await redis.ping()) !== "PONG") throw new Error("PING was not answered PONG");
      return /redis_version:(\S+)/.exec(await redis.info("server"))?.[1] ?? "";
    },
  };
}

export function kafkaProbe(kafka: KafkaClient): Probe {
  return {
    name: "kafka",
    kind: "queue",
    async run() {
      const admin = kafka.admin();
      await admin.connect();
      try {
        const { brokers } = await admin.describeCluster();
        if (brokers.length === 0) throw new Error("the cluster lists no brokers");
        return "";
      } finally {
        await admin.disconnect();
      }
    },
  };
}

export function artefactStoreProbe(store: ArtefactStore): Probe {
  return {
    name: "artefact_store",
    kind: "store",
    async run() {
      await store.usage();
      return "";
    },
  };
}

/** The SMTP relay's greeting (a 220 line) over a plain connection; no mail is sent and nothing is authenticated. */
export function smtpProbe(host: string, port: number): Probe {
  return {
    name: "smtp",
    kind: "mail",
    run: () =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({ host, port });
        let greeting = "";
        socket.setTimeout(PROBE_TIMEOUT_MS, () => socket.destroy(new Error("no greeting")));
        socket.on("data", (d: Buffer) => {
          greeting += d.toString("latin1");
          if (!greeting.includes("\n")) return;
          socket.end("QUIT\r\n");
          const line = greeting.split(/\r?\n/)[0]!;
          if (line.startsWith("220")) resolve(line.slice(4).trim().slice(0, 200));
          else reject(new Error(`greeted with "${line.slice(0, 100)}"`));
        });
        socket.on("error", reject);
      }),
  };
}
