// The client of a call as one sca.common.v1.ClientAddress, service-side: from the address the edge put in an
// anonymous request, or from the caller it vouched for. Parts the edge did not know are "".
import { create } from "@bufbuild/protobuf";
import { ClientAddressSchema, type ClientAddress } from "@sca/proto/sca/common/v1/client_address_pb.ts";
import type { Caller } from "./caller.ts";

export function clientAddressFrom(from: Caller | Pick<ClientAddress, "ip" | "userAgent"> | undefined): ClientAddress {
  if (from === undefined) return create(ClientAddressSchema);
  if ("kind" in from) return create(ClientAddressSchema, { ip: from.ip ?? "", userAgent: from.user_agent ?? "" });
  return create(ClientAddressSchema, { ip: from.ip, userAgent: from.userAgent });
}
