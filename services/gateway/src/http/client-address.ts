// Who is at the other end of a request, as services are told (sign-in audit, throttles): the client address
// (the socket's, or the one the trusted ingress saw: TRUST_PROXY_HOPS) and the User-Agent.
import { create } from "@bufbuild/protobuf";
import type { Request } from "express";
import { ClientAddressSchema, type ClientAddress } from "@sca/proto/sca/common/v1/client_address_pb.ts";

/** The sca.common.v1.ClientAddress a request to a service carries. */
export function clientOf(req: Request): ClientAddress {
  return create(ClientAddressSchema, { ip: clientAddressOf(req), userAgent: req.get("user-agent") ?? "" });
}

/** The client address; also the subject of per-address rate limits (`key: clientAddressOf`). */
export function clientAddressOf(req: Request): string {
  return req.ip ?? "";
}
