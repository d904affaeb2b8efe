// ObligationService: a project's license obligations (derived at read time, obligation-derivation.ts), their
// fulfilments (stored here, fulfilment-writes.ts) and the notice document, streamed (notice-export.ts;
// docs/obligations.md).
import type { ConnectRouter } from "@connectrpc/connect";
import { ObligationService } from "@sca/proto/sca/policy/v1/obligations_pb.ts";
import { fulfilmentWriteHandlers } from "./fulfilment-writes.ts";
import { noticeExportHandlers } from "./notice-export.ts";
import type { ObligationDeps } from "./obligation-deps.ts";
import { obligationReadHandlers } from "./obligation-reads.ts";

export function registerObligationService(router: ConnectRouter, deps: ObligationDeps): void {
  router.service(ObligationService, {
    ...obligationReadHandlers(deps),
    ...fulfilmentWriteHandlers(deps),
    ...noticeExportHandlers(deps),
  });
}
