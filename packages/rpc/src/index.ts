export { serviceInterceptors, startRpcServer } from "./server.ts";
export type { RpcServer, RpcServerOptions } from "./server.ts";
export { HealthRegistry, READINESS } from "./health.ts";
export {
  ANONYMOUS,
  callerKey,
  isPerson,
  isSuperAdmin,
  requireCaller,
  requirePerson,
  requireService,
  requireSuperAdmin,
  serviceCallerToken,
  callerToken,
  signCallerToken,
  verifyCallerToken,
  CALLER_HEADER,
} from "./caller.ts";
export type { Caller, Membership, ApiKeyGrant, Person, Role } from "./caller.ts";
export { clientAddressFrom } from "./client-address.ts";
export { createServiceClient, callerTokenKey } from "./client.ts";
export { onShutdown } from "./shutdown.ts";
export { byteChunks } from "./byte-chunks.ts";
export { encodedMessage } from "./encoded-message.ts";
