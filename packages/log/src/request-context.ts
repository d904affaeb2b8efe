import { AsyncLocalStorage } from "node:async_hooks";

interface RequestContext {
  requestId: string;
}

/** Carries the request id through every await so each log line of a request names it. */
export const requestContext = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

export function withRequestId<T>(requestId: string, fn: () => T): T {
  return requestContext.run({ requestId }, fn);
}
