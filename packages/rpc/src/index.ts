export { serviceInterceptors, startRpcServer } from "./server.ts";
export type { RpcServer, RpcServerOptions } from "./server.ts";
export { HealthRegistry, READINESS } from "./health.ts";
export { ANONYMOUS, callerKey, requireCaller, signCallerToken, verifyCallerToken, CALLER_HEADER } from "./caller.ts";
export type { Caller, Membership, ApiKeyGrant, Role } from "./caller.ts";
export { createServiceClient, callerTokenKey } from "./client.ts";
export { onShutdown } from "./shutdown.ts";
