// A message encoded once, for an answer sent many times (a page kept in memory): protobuf-es's toBinary, patched,
// returns the message's own encoding (patches/@bufbuild__protobuf@2.17.0.patch), so Connect sends those bytes without
// encoding or copying the page again. Each answer used to take a new buffer of the page's size, external memory that
// made V8 run a full collection every few seconds at 100 pages a second (issue 24, docs/benchmarks.md).
import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";

// The key the patched toBinary reads; a symbol from the global registry, as the patch cannot import this file.
const ENCODED = Symbol.for("sca.protobuf.encoded");

/**
 * The message `init` describes, frozen, carrying its encoding. Its `bytes` fields are views into that encoding (as
 * protobuf-es reads them), so the message weighs about its encoded length, not twice that.
 */
export function encodedMessage<Desc extends DescMessage>(
  schema: Desc,
  init: MessageInitShape<Desc>,
): Readonly<MessageShape<Desc>> {
  const bytes = toBinary(schema, create(schema, init));
  const message = fromBinary(schema, bytes);
  Object.defineProperty(message, ENCODED, { value: bytes });
  // Frozen (its top level, which is what a handler's answer sets), so the bytes always say what the message does.
  return Object.freeze(message);
}
