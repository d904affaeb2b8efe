/**
 * Reads until `done` holds of what was read or `timeoutMs` has passed, every 200 ms, and gives the last value read
 * either way, so the test's own assertion on it says what was missing.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}
