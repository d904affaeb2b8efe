// GET /v1/projects/{id}/notice: the attribution document of the project's newest succeeded scan (every component
// with its license, then the SPDX texts of those licenses), plain text streamed from the policy service's
// ObligationService as it writes it (docs/obligations.md, "Notice").
import { z } from "zod";
import { ConnectError } from "@connectrpc/connect";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";

export function noticeRoutes(ctx: GatewayContext): Route[] {
  const obligations = ctx.clients.policy.obligations;
  return [
    defineRoute({
      method: "get",
      path: "/v1/projects/{id}/notice",
      summary: "The project's third-party notice document",
      description:
        "Plain text: each component of the newest succeeded scan (name, version, package URL, license, copyright " +
        "when the SBOM had one) in name order, then the full text of every license they name (SPDX License List). " +
        "The same scan gives the same bytes. Sent as an attachment named NOTICE-<slug>.txt.",
      tags: ["obligations"],
      operationId: "getProjectNotice",
      auth: ctx.auth.route("caller"),
      request: { params: z.object({ id: z.uuid() }) },
      responses: {
        200: {
          description: "The notice document",
          content: { "text/plain; charset=utf-8": z.string().meta({ description: "The notice" }) },
          headers: z.object({
            "Content-Disposition": z.string().meta({ example: 'attachment; filename="NOTICE-shop.txt"' }),
          }),
          stream: true,
        },
        404: problemResponse("No such project (or not readable), or no succeeded scan yet"),
      },
      handler: async ({ params, call }) => {
        const parts = obligations.exportNotice({ projectId: params.id }, call)[Symbol.asyncIterator]();
        // The header comes first: an error before it (404) is still a problem document.
        const first = await parts.next();
        if (first.done || first.value.part.case !== "header")
          throw new ConnectError("the notice export answered without its header");
        const header = first.value.part.value;
        async function* bytes() {
          try {
            for (let next = await parts.next(); !next.done; next = await parts.next())
              if (next.value.part.case === "chunk") yield next.value.part.value;
          } finally {
            await parts.return?.();
          }
        }
        return {
          status: 200,
          stream: bytes(),
          headers: {
            "Content-Type": header.mediaType,
            "Content-Disposition": `attachment; filename="${header.fileName}"`,
          },
        };
      },
    }),
  ];
}
