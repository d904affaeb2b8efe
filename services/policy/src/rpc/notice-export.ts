// The notice document (ExportNotice), streamed: a header part naming the file, then the text in chunks as the
// project's attributions arrive from projects, each license's text once at the end (docs/obligations.md).
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { UUID } from "@sca/ids";
import { ProblemError } from "@sca/problem";
import { ExportNoticeResponseSchema, type ExportNoticeResponse } from "@sca/proto/sca/policy/v1/obligations_pb.ts";
import { byteChunks, requireCaller, type Caller } from "@sca/rpc";
import { licenseText, LICENSE_TEXTS_VERSION } from "../domain/license-texts.ts";
import {
  componentEntry,
  licenseIdsOf,
  licenseSection,
  licenseTextsHeading,
  NOTICE_MAX_LICENSE_IDS,
  NOTICE_MEDIA_TYPE,
  noticeFileName,
  noticeHeader,
  omittedLicenses,
} from "../domain/notice-document.ts";
import type { ObligationDeps, ObligationHandlers } from "./obligation-deps.ts";

/** Bytes gathered before a notice chunk is sent. */
const NOTICE_CHUNK_BYTES = 64 * 1024;

async function* noticePieces(
  deps: ObligationDeps,
  caller: Caller,
  projectId: string,
  signal: AbortSignal,
): AsyncGenerator<string | { header: { fileName: string; scanId: string } }> {
  const { header, chunks } = await deps.inventory.attributions(caller, projectId, signal);
  const project = header.project!;
  yield { header: { fileName: noticeFileName(project.slug), scanId: header.scanId } };
  yield noticeHeader(project, header.scanId, header.componentCount, LICENSE_TEXTS_VERSION);
  const ids = new Set<string>();
  let omitted = 0;
  for await (const components of chunks) {
    for (const c of components) {
      yield componentEntry(c);
      for (const id of licenseIdsOf(c.license)) {
        if (ids.has(id)) continue;
        if (ids.size < NOTICE_MAX_LICENSE_IDS) ids.add(id);
        else omitted++;
      }
    }
  }
  yield licenseTextsHeading();
  const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  for (const id of [...ids].sort(byBytes)) yield licenseSection(id, await licenseText(id));
  if (omitted) yield omittedLicenses(omitted);
}

export function noticeExportHandlers(deps: ObligationDeps): ObligationHandlers<"exportNotice"> {
  return {
    async *exportNotice(req, ctx: HandlerContext): AsyncGenerator<ExportNoticeResponse> {
      const caller = requireCaller(ctx);
      if (!UUID.test(req.projectId)) throw ProblemError.notFound("No such project.");
      const pieces = noticePieces(deps, caller, req.projectId.toLowerCase(), ctx.signal);
      const first = await pieces.next();
      if (first.done || typeof first.value === "string") throw new Error("the notice began without its header");
      const { fileName, scanId } = first.value.header;
      yield create(ExportNoticeResponseSchema, {
        part: { case: "header", value: { mediaType: NOTICE_MEDIA_TYPE, fileName, scanId } },
      });
      async function* text(): AsyncGenerator<string> {
        for await (const piece of pieces) if (typeof piece === "string") yield piece;
      }
      for await (const chunk of byteChunks(text(), NOTICE_CHUNK_BYTES)) {
        if (ctx.signal.aborted) return;
        yield create(ExportNoticeResponseSchema, { part: { case: "chunk", value: chunk } });
      }
    },
  };
}
