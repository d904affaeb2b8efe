// Who is at the other end of a request, as services are told (sign-in audit, throttles): the client address
// (the socket's, or the one the trusted ingress saw: TRUST_PROXY_HOPS) and the User-Agent.
import type { Request } from "express";

export interface ClientInfo { ip: string; userAgent: string }

export function clientOf(req: Request): ClientInfo {
  return { ip: clientAddressOf(req), userAgent: req.get("user-agent") ?? "" };
}

/** The client address; also the subject of per-address rate limits (`key: clientAddressOf`). */
export function clientAddressOf(req: Request): string {
  return req.ip ?? "";
}
