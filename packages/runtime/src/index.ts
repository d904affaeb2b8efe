export { runService } from "./run-service.ts";
export type { ServiceDefinition, ServiceContext } from "./run-service.ts";
export type { KafkaUse, ServiceKafka } from "./service-kafka.ts";
export { SERVICES, defaultRpcPort, rpcUrlFor } from "./services.ts";
export type { ServiceName } from "./services.ts";
