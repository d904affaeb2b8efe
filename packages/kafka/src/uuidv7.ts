// RFC 9562 UUIDv7: a 48-bit Unix millisecond timestamp, then random bits. Ids from one process sort in the
// order they were made (rand_a counts within a millisecond), so outbox rows are published in that order.
import { randomBytes, randomInt } from "node:crypto";
import { UUID } from "@sca/ids";

let lastMs = 0;
let counter = 0;

export function uuidv7(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = randomInt(0, 0x800); // start low enough to leave room for counting up
  } else if (++counter > 0xfff) {
    // 4096 ids in one millisecond, or the clock went back: borrow the next millisecond.
    lastMs += 1;
    counter = 0;
  }
  const bytes = randomBytes(16);
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
